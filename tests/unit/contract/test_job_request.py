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
