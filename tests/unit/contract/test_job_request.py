"""A run asked for in the CLI's grammar (contract/job_request.py): the JSON body's types, the checks
every front-end shares with the CLI, the limits a hosted server adds, the API's OpenAPI document
built from the same dataclass, and API tokens as clients of their own. No server: tests/integration/test_api.py
runs the routes."""

from __future__ import annotations

import dataclasses
import json

import pytest
from openapi_spec_validator import validate

from playground.api import openapi
from playground.contract import job_request
from playground.contract.config import Settings
from playground.contract.errors import PlaygroundError
from playground.contract.job_request import FieldError, JobRequest
from playground.front_door import identity

SETTINGS = Settings()


def test_a_json_body_becomes_the_request_it_describes():
    body = {
        "source": "x = 1\n",
        "function": "f",
        "calls": ["float32[3]", "n=2"],
        "reduce_retracing": True,
        "timing_budget_s": 1,
        "compare": "jit_compile",
    }
    asked = job_request.from_json(json.loads(json.dumps(body)))
    assert asked == JobRequest(
        source="x = 1\n",
        function="f",
        calls=("float32[3]", "n=2"),
        reduce_retracing=True,
        timing_budget_s=1.0,
        compare="jit_compile",
    )
    assert job_request.from_json(dict(job_request.as_mapping(asked))) == asked


@pytest.mark.parametrize(
    "body, field",
    [
        ({"source": 1}, "source"),
        ({"source": "x", "calls": ["a", 2]}, "calls"),
        ({"source": "x", "timing": 1}, "timing"),
        ({"source": "x", "timing_budget_s": True}, "timing_budget_s"),
        ({"source": "x", "signature": []}, "signature"),
        ({"calls": []}, "source"),
        ({"source": "x", "Source": "y"}, "Source"),
        (["source"], ""),
    ],
)
def test_a_value_of_the_wrong_json_type_names_its_field(body, field):
    with pytest.raises(FieldError) as refused:
        job_request.from_json(body)
    assert refused.value.field == field


def test_the_job_is_the_one_the_request_names():
    job = job_request.to_job(
        JobRequest(
            source="x = 1\n",
            function="f",
            calls=("int32[2]",),
            signature="int32[None]",
            jit_compile=True,
            filename="/home/me/model.py",
        ),
        SETTINGS,
    )
    assert (
        job.function,
        job.calls,
        job.signature,
        job.jit_compile,
        job.filename,
        job.timeout_s,
        job.tf_version,
    ) == ("f", ("int32[2]",), "int32[None]", True, "model.py", SETTINGS.timeout_s, "")


@pytest.mark.parametrize(
    "changes, field",
    [
        (
            {
                "calls": (
                    "float32[3]",
                    "float32[3",
                )
            },
            "calls[1]",
        ),
        ({"signature": "float32[None"}, "signature"),
        ({"sweep": "x=1"}, "sweep"),
        ({"timeout_s": 0.0}, "timeout_s"),
        ({"device": "tpu"}, "device"),
        ({"tf_version": "1.15.0"}, "tf_version"),
    ],
)
def test_a_field_that_cannot_run_is_named(changes, field):
    with pytest.raises(FieldError) as refused:
        job_request.to_job(dataclasses.replace(JobRequest(source="x = 1\n"), **changes), SETTINGS)
    assert refused.value.field == field and str(refused.value)


def test_a_hosted_server_adds_the_pages_limits_and_the_cli_does_not():
    generous = JobRequest(
        source="x = 1\n",
        calls=("()",) * (SETTINGS.max_calls + 1),
        timeout_s=SETTINGS.timeout_s * 4,
        timing_budget_s=60.0,
    )
    assert job_request.to_job(generous, SETTINGS).timeout_s == SETTINGS.timeout_s * 4
    for changes, field in (
        ({}, "calls"),
        ({"calls": ()}, "timing_budget_s"),
        ({"calls": (), "timing_budget_s": 1.0}, "timeout_s"),
        ({"source": "#" * (SETTINGS.max_source_bytes + 1)}, "source"),
        ({"calls": ("1," * SETTINGS.max_source_bytes,)}, "calls"),
        ({"calls": ("float32[3]",), "signature": "float32[1]," * SETTINGS.max_source_bytes}, "signature"),
    ):
        with pytest.raises(FieldError) as refused:
            job_request.to_job(dataclasses.replace(generous, **changes), SETTINGS, hosted=True)
        assert refused.value.field == field


def test_the_openapi_document_is_valid_and_made_from_the_dataclasses():
    document = openapi.document()
    validate(document)
    request = document["components"]["schemas"]["JobRequest"]
    assert set(request["properties"]) == {f.name for f in dataclasses.fields(JobRequest)}
    assert request["required"] == ["source"] and request["additionalProperties"] is False
    assert request["properties"]["calls"] == {"type": "array", "items": {"type": "string"}}
    assert request["properties"]["function"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    status = document["components"]["schemas"]["Report"]["properties"]["status"]
    assert status["enum"] == ["ok", "error", "timeout", "memory", "killed"]


def scope(authorization: str = "", address: str = "203.0.113.5") -> dict:
    headers = [(b"authorization", authorization.encode())] if authorization else []
    return {"type": "http", "path": "/api/v1/analyze", "headers": headers, "client": (address, 5000)}


def test_a_known_token_is_its_own_client_and_anything_else_is_the_address():
    known = identity.tokens(" ci = s3cret , bot=0ther,broken")
    assert known == {"s3cret": "ci", "0ther": "bot"}
    assert identity.of_api_scope("", known, scope("Bearer s3cret")) == "token:ci"
    assert identity.of_api_scope("", known, scope("Bearer nope")) == "203.0.113.5"
    assert identity.of_api_scope("", known, scope("Basic s3cret")) == "203.0.113.5"
    assert identity.of_api_scope("", known, scope()) == "203.0.113.5"
    assert identity.bearer(scope("Basic abc")) == "" and identity.bearer(scope()) is None


# -- a refusal costs less than a Run: counts before parsing (issue 55) ---------------------------
F_OF_ANY = "def f(*args, **kwargs):\n    return 1\n"


@pytest.mark.parametrize(
    "calls",
    [
        ("[" + ",".join(["1"] * 32_000) + "]",),  # a 64 KB literal: 50 ms to parse, then accepted
        (",".join(["1"] * 32_000) + ",@",),  # 32,000 arguments, the last unreadable: 190 ms
        ("-" * 600 + "1",),
        ("tf.ones([2]), " * 100,),
    ],
    ids=["literal", "arguments", "unary", "forms"],
)
def test_a_plan_too_large_to_read_cheaply_is_refused_by_its_count_before_it_is_parsed(calls, monkeypatch):
    parsed = []
    monkeypatch.setattr(job_request.specs, "parse_call", lambda *a, **k: parsed.append(a))
    asked = JobRequest(source=F_OF_ANY, function="f", calls=calls)
    with pytest.raises(FieldError) as refused:
        job_request.to_job(asked, SETTINGS, hosted=True)
    message = str(refused.value)
    assert refused.value.field == "calls" and f"the limit is {job_request.MAX_PLAN_MARKS}" in message
    assert "tf.ones([1000])" in message and parsed == []


def test_a_plan_at_the_marks_limit_is_read():
    marks = job_request.MAX_PLAN_MARKS
    one = ",".join(["1"] * (marks + 1))  # commas only
    assert job_request.to_job(JobRequest(source=F_OF_ANY, function="f", calls=(one,)), SETTINGS, hosted=True)


def test_a_call_the_grammar_cannot_read_is_refused_before_the_code_is_read(monkeypatch):
    """The code is read with Python's parser (40 ms for 64 KB): only once the plan has passed."""
    read = []
    real = job_request.source_info.parse
    monkeypatch.setattr(job_request.source_info, "parse", lambda source: read.append(1) or real(source))
    job_request.source_info.read.cache_clear()  # no reading kept from an earlier test
    source = F_OF_ANY + "x = 1\n" * 10_000
    for calls, field in ((("float32[3]", "float32[3"), "calls[1]"), (("int33[2]",), "calls[0]")):
        with pytest.raises(FieldError) as refused:
            job_request.to_job(JobRequest(source=source, function="f", calls=calls), SETTINGS, hosted=True)
        assert refused.value.field == field
    assert read == []
    # a "?" is named from the code's parameters, as before: the code is read for it
    with pytest.raises(FieldError, match="fill in x"):
        job_request.to_job(
            JobRequest(source="def f(x):\n    return x\n", function="f", calls=("?",)), SETTINGS
        )
    assert read


def test_every_request_within_the_limits_fits_the_body_cap_and_the_value_count():
    """The API refuses a body over max_body_bytes, or holding more than max_json_values
    values, before it decodes it: no request the limits accept may be over either."""
    from playground.api import body

    widest = JobRequest(
        source="\x01" * SETTINGS.max_source_bytes,  # 6 bytes of JSON each
        function="f",
        calls=("\U0001f600" * (SETTINGS.max_source_bytes // SETTINGS.max_calls),) * SETTINGS.max_calls,
        signature="",
        compare="jit_compile",
        timeout_s=1.0,
    )  # every character of the plan a surrogate pair: 12 bytes of JSON
    every = {f.name: getattr(widest, f.name) for f in dataclasses.fields(JobRequest)}
    every["calls"] = list(widest.calls)
    text = json.dumps(every, indent=4).encode()  # ensure_ascii: the widest spelling
    assert len(text) <= job_request.max_body_bytes(SETTINGS)
    assert not body.too_many(text, job_request.max_json_values(SETTINGS))[0]
    assert body.loads(text, max_values=job_request.max_json_values(SETTINGS)) == every


def test_the_code_is_measured_before_it_is_checked_as_text_and_still_refused_as_text():
    with pytest.raises(PlaygroundError, match="not valid UTF-8"):  # not a UnicodeEncodeError
        job_request.to_job(JobRequest(source='x = "\ud800"\n'), SETTINGS, hosted=True)
