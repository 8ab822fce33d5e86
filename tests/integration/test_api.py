"""The HTTP API (/api/v1) in a real `streamlit run app.py`, spoken to with the standard library as a
script would, running real sandboxed jobs: each route, streamed events, the refusals (400 from the
CLI's own parsers and messages, 401, 413, 429 with Retry-After), a token as its own client, two
clients sharing the sandbox fairly, the remote CLI against the local one, and the OpenAPI
document: valid, complete, and obeyed by every route under schemathesis's generated requests.
Each test speaks as its own X-Forwarded-For address (from the documentation range), so the
per-client limits of one test never reach another."""

from __future__ import annotations

import dataclasses
import http.client
import itertools
import json
import os
import subprocess
import sys
import threading
import time
import typing
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlsplit

import hypothesis
import pytest
import repo_paths
import schemathesis
from browser_support import streamlit_server
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from playground import gallery
from playground.contract import versions
from playground.contract.config import Settings
from playground.contract.job import Job, Report
from playground.contract.job_request import JobRequest

ROOT = repo_paths.ROOT
RUNS_PER_MINUTE = 6
TOKEN = "s3cret-for-ci"
SERVER_ENV = {
    "PLAYGROUND_CLIENT_IP_HEADER": "X-Forwarded-For",
    "PLAYGROUND_POOL_SIZE": "1",
    "PLAYGROUND_RUNS_PER_MINUTE": str(RUNS_PER_MINUTE),
    "PLAYGROUND_API_TOKENS": f"ci={TOKEN}",
    "STREAMLIT_SERVER_MAX_UPLOAD_SIZE": "1",
}  # the body cap: 1 MB + 64 KiB
RETRACING = gallery.BY_SLUG["retracing"]
# Host paths that must never reach a client.
HOST_PATHS = ("/opt/tf-playground", str(ROOT), "/root/", "/tmp/")


@pytest.fixture(scope="module")
def server():
    with streamlit_server(executor="ui_support:real_or_subprocess", env=SERVER_ENV) as (url, _):
        warm = ask(url, "POST", "/api/v1/analyze", {"source": "x = 1\n"}, client="198.51.100.1", timeout=240)
        assert warm.status == 200, warm.body
        yield url


@dataclasses.dataclass
class Answer:
    status: int
    headers: Any
    body: Any  # the decoded JSON, or a list of (arrival s, event) when streamed
    text: str


def ask(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    client: str,
    headers: dict | None = None,
    stream: bool = False,
    raw: bytes | None = None,
    timeout: float = 120,
) -> Answer:
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path,
        data=data,
        method=method,
        headers={
            "Content-Type": "application/json",
            "X-Forwarded-For": client,
            **(headers or {}),
            **({"Accept": "application/x-ndjson"} if stream else {}),
        },
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            if stream:
                events = [(time.monotonic() - started, json.loads(line)) for line in answer if line.strip()]
                return Answer(answer.status, answer.headers, events, json.dumps(events))
            text = answer.read().decode()
            return Answer(answer.status, answer.headers, json.loads(text), text)
    except urllib.error.HTTPError as refused:
        text = refused.read().decode()
        return Answer(refused.code, refused.headers, json.loads(text), text)


def analyze(url: str, request: JobRequest, client: str, **kwargs: Any) -> Answer:
    from playground.contract.job_request import as_mapping

    return ask(url, "POST", "/api/v1/analyze", dict(as_mapping(request)), client=client, **kwargs)


def retracing_request(**changes: Any) -> JobRequest:
    return dataclasses.replace(
        JobRequest(source=RETRACING.source, function=RETRACING.function, calls=tuple(RETRACING.calls)),
        **changes,
    )


def no_host_path(text: str) -> None:
    for path in HOST_PATHS:
        assert path not in text, path


# -- the routes ---------------------------------------------------------------------------------
def test_versions_are_the_installed_ones_and_name_no_path(server):
    answer = ask(server, "GET", "/api/v1/versions", client="198.51.100.2")
    installed = [v.version for v in versions.installed(Settings.from_env())]
    assert answer.status == 200
    assert answer.body == {"default": installed[0], "versions": installed}
    no_host_path(answer.text)


def test_examples_are_the_gallery_and_each_one_runs_as_its_claim_says(server):
    listed = ask(server, "GET", "/api/v1/examples", client="198.51.100.3")
    assert [e["name"] for e in listed.body["examples"]] == [e.slug for e in gallery.EXAMPLES]
    one = ask(server, "GET", "/api/v1/examples/retracing", client="198.51.100.3")
    assert one.body["title"] == RETRACING.title and one.body["article_claim"]
    ran = ask(server, "POST", "/api/v1/analyze", one.body["request"], client="198.51.100.3")
    assert ran.status == 200, ran.body
    assert Report.from_json(json.dumps(ran.body)).tracing_count == RETRACING.expect.tracing_count == 2
    missing = ask(server, "GET", "/api/v1/examples/no-such-thing", client="198.51.100.3")
    assert missing.status == 404 and "no-such-thing" in missing.body["error"]["message"]
    chinese = ask(server, "GET", "/api/v1/examples?lang=zh", client="198.51.100.3")
    assert chinese.body["examples"][0]["title"] != listed.body["examples"][0]["title"]


def test_a_run_answers_with_the_report_and_a_link_that_opens_it_in_the_page(server):
    answer = analyze(server, retracing_request(), "198.51.100.4")
    assert answer.status == 200, answer.body
    report = Report.from_json(json.dumps({k: v for k, v in answer.body.items() if k != "share_url"}))
    assert report.status == "ok" and report.sandbox.isolation == "bubblewrap"
    assert [c.retraced for c in report.functions[0].calls] == [True, False, True]
    link = answer.body["share_url"]
    assert link.startswith(server + "/?code=") and "fn=process" in link
    from playground.contract.share_link import decode_source

    params = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
    assert decode_source(params["code"]) == RETRACING.source
    assert params["calls"].splitlines() == list(RETRACING.calls)
    no_host_path(answer.text)


def test_behind_the_tls_proxy_the_link_keeps_the_visitors_scheme(server):
    """nginx terminates TLS and says so in X-Forwarded-Proto (deploy/proxy); this server trusts
    the proxy's headers because it names a client IP header."""
    answer = analyze(
        server, JobRequest(source="x = 1\n"), "198.51.100.14", headers={"X-Forwarded-Proto": "https"}
    )
    assert answer.status == 200, answer.body
    assert answer.body["share_url"].startswith("https://" + server.split("://", 1)[1] + "/?")


def test_a_script_runs_as_in_script_mode(server):
    source = (
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x + 1\n\n"
        "print(f(tf.constant(1)).numpy())\nprint(f(tf.constant(2.0)).numpy())\n"
    )
    answer = ask(server, "POST", "/api/v1/analyze", {"source": source}, client="198.51.100.5")
    assert answer.status == 200, answer.body
    assert answer.body["stdout"].split() == ["2", "3.0"]
    assert answer.body["functions"][0]["tracing_count"] == 2


def test_events_stream_live_in_order_and_end_with_the_report(server):
    source = (
        "import time\nimport tensorflow as tf\n\n@tf.function\ndef slow(x):\n"
        "    time.sleep(1.0)   # at trace time\n    return x * 2\n"
    )
    answer = analyze(
        server,
        JobRequest(source=source, function="slow", calls=("float32[3]", "float32[3]", "float32[2]")),
        "198.51.100.6",
        stream=True,
    )
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("application/x-ndjson")
    kinds = [event["event"] for _at, event in answer.body]
    assert kinds[-1] == "report" and kinds.index("started") < kinds.index("call_finished")
    finished = [(at, e) for at, e in answer.body if e["event"] == "call_finished"]
    assert [(e["index"], e["retraced"], e["tracing_count"]) for _at, e in finished] == [
        (0, True, 1),
        (1, False, 1),
        (2, True, 2),
    ]
    assert finished[1][1]["reason"] is None and "shape" in finished[2][1]["reason"]
    # live: the first call's event came a trace (1 s of sleep) before the report did
    assert answer.body[-1][0] - finished[0][0] >= 0.8
    final = answer.body[-1][1]
    assert final["report"]["functions"][0]["tracing_count"] == 2 and final["share_url"]


def test_compare_answers_as_analyze_compare_does(server):
    answer = analyze(server, retracing_request(compare="reduce_retracing"), "198.51.100.7")
    assert answer.status == 200, answer.body
    compared = answer.body["compare"]
    assert compared["spec"] == "reduce_retracing"
    assert compared["a"]["functions"][0]["tracing_count"] == 2
    assert compared["b"]["functions"][0]["tracing_count"] == 2  # (3,) then (2,): rank-1 relaxed
    assert "share_url" in answer.body and "cmp=reduce_retracing" in answer.body["share_url"]


# -- refusals -----------------------------------------------------------------------------------
def cli_refusal(*flags: str) -> str:
    """What the local CLI says of these flags (exit 2), without the "error: " it leads with."""
    done = subprocess.run(
        [sys.executable, "-m", "playground", "analyze", "-", *flags],
        input=RETRACING.source,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().removeprefix("error: ")


@pytest.mark.parametrize(
    "changes, flags, field",
    [
        (
            {"calls": ("float32[3]", "float33[2]")},
            ["--call", "float32[3]", "--call", "float33[2]"],
            "calls[1]",
        ),
        ({"signature": "float32[None"}, ["--signature", "float32[None"], "signature"),
        ({"sweep": "x[0]=a,b"}, ["--timing", "--sweep", "x[0]=a,b"], "sweep"),
        ({"tf_version": "1.15.0"}, ["--tf", "1.15.0"], "tf_version"),
        ({"compare": "jit_compile=maybe"}, ["--compare", "jit_compile=maybe"], "compare"),
    ],
    ids=["call", "signature", "sweep", "version", "compare"],
)
def test_a_field_that_cannot_run_is_a_400_with_the_clis_own_message(server, changes, flags, field):
    answer = analyze(server, retracing_request(**changes), "198.51.100.8")
    assert answer.status == 400, answer.body
    assert answer.body["error"]["field"] == field
    assert answer.body["error"]["message"] == cli_refusal(*flags)
    no_host_path(answer.text)


@pytest.mark.parametrize(
    "raw, field, words",
    [
        (b"not json", "", "not JSON"),  # "": the body as a whole
        (b"[1, 2]", "", "JSON object"),
        (b'{"function": "f"}', "source", "source"),
        (b'{"source": "x = 1", "calls": "float32[3]"}', "calls", "list of strings"),
        (b'{"source": "x = 1", "jit_compile": "yes"}', "jit_compile", "true or false"),
        (b'{"source": "x = 1", "inputs": []}', "inputs", "unknown field"),
        (b'{"source": "x = 1", "timeout_s": 99999}', "timeout_s", "at most"),
    ],
    ids=["not-json", "array", "no-source", "calls-type", "bool-type", "unknown", "timeout"],
)
def test_a_malformed_body_is_a_400_that_names_the_problem(server, raw, field, words):
    answer = ask(server, "POST", "/api/v1/analyze", raw=raw, client="198.51.100.9")
    assert answer.status == 400, answer.body
    assert answer.body["error"].get("field") == field
    assert words in answer.body["error"]["message"]


def test_a_body_over_the_cap_is_a_413_before_it_is_read(server):
    """The headers alone are answered: the 2 MB body is never sent."""
    host, port = urlsplit(server).hostname, urlsplit(server).port
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.putrequest("POST", "/api/v1/analyze")
    for name, value in (
        ("Content-Type", "application/json"),
        ("Content-Length", str(2 << 20)),
        ("X-Forwarded-For", "198.51.100.10"),
    ):
        connection.putheader(name, value)
    connection.endheaders()
    answer = connection.getresponse()
    assert answer.status == 413
    assert "larger than this playground accepts" in json.loads(answer.read())["error"]["message"]
    connection.close()


def test_over_the_run_rate_is_a_429_with_retry_after_and_the_pages_sentence(server):
    client = "198.51.100.11"
    statuses = [analyze(server, JobRequest(source="x = 1\n"), client).status for _ in range(RUNS_PER_MINUTE)]
    assert statuses == [200] * RUNS_PER_MINUTE
    refused = analyze(server, JobRequest(source="x = 1\n"), client)
    assert refused.status == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.body["error"]["message"].startswith(
        f"Rate limit: at most {RUNS_PER_MINUTE} runs a minute per visitor."
    )
    chinese = analyze(server, JobRequest(source="x = 1\n"), client, headers={"Accept-Language": "zh-CN"})
    assert chinese.status == 429 and "Rate limit" not in chinese.body["error"]["message"]
    # A token is its own client: the address's limit does not reach it.
    with_token = analyze(
        server, JobRequest(source="x = 1\n"), client, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert with_token.status == 200, with_token.body
    unknown = analyze(
        server, JobRequest(source="x = 1\n"), "198.51.100.12", headers={"Authorization": "Bearer guessed"}
    )
    assert unknown.status == 401 and "token" in unknown.body["error"]["message"]


def test_no_worker_that_can_start_is_a_503_with_retry_after():
    """A server whose worker interpreter cannot run: the run is refused at once, not hung."""
    broken = {**SERVER_ENV, "PLAYGROUND_PYTHON": "/bin/false"}
    with streamlit_server(executor="ui_support:real_or_subprocess", env=broken) as (url, _):
        answer = analyze(url, JobRequest(source="x = 1\n"), "198.51.100.20")
        assert answer.status == 503 and int(answer.headers["Retry-After"]) >= 1
        assert "worker" in answer.body["error"]["message"]
        streamed = analyze(url, JobRequest(source="x = 1\n"), "198.51.100.21", stream=True)
        assert streamed.body[-1][1] == {"event": "error", **answer.body}
        no_host_path(answer.text + streamed.text)


def test_two_clients_share_the_sandbox_in_turns(server):
    """One worker. Client A sends two runs, then B one: B's runs before A's second."""
    slow = JobRequest(source="import time\ntime.sleep(1.5)\nprint('done')\n")
    finished: dict[str, float] = {}

    def run(name: str, client: str) -> None:
        answer = analyze(server, slow, client, stream=True)
        assert answer.body[-1][1]["event"] == "report", answer.body[-1]
        finished[name] = time.monotonic()

    threads = []
    for name, client, pause in (
        ("a1", "198.51.100.13", 0.5),
        ("a2", "198.51.100.13", 0.3),
        ("b1", "198.51.100.14", 0.0),
    ):
        threads.append(threading.Thread(target=run, args=(name, client)))
        threads[-1].start()
        time.sleep(pause)
    for thread in threads:
        thread.join(120)
    assert finished["a1"] < finished["b1"] < finished["a2"], finished


# -- the remote CLI -----------------------------------------------------------------------------
# What differs between two runs of one job: timings, ids, and how the worker was started (the
# server forks a warm zygote, the local CLI starts a cold worker; sandbox.notes says which).
VOLATILE = ("duration_s", "executor", "uid", "timing", "notes", "cpu_s", "memory_peak_mb", "tracing_s")


def stable(value: Any) -> Any:
    """A report's JSON without what differs between two runs of the same job."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def untimed(text: str) -> list[str]:
    """The text's lines, less the cost line: it quotes the time the tracing calls took."""
    return [line for line in text.splitlines() if not line.startswith("  cost: ")]


def test_the_remote_cli_prints_what_the_local_cli_prints(server, tmp_path):
    path = tmp_path / "retracing.py"
    path.write_text(RETRACING.source)
    flags = ["--function", "process", *[a for c in RETRACING.calls for a in ("--call", c)]]

    def cli(*extra: str) -> subprocess.CompletedProcess:
        env = dict(os.environ, PLAYGROUND_API_TOKEN=TOKEN)
        return subprocess.run(
            [sys.executable, "-m", "playground", "analyze", str(path), *flags, *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=240,
        )

    local, remote = cli("--json"), cli("--json", "--server", server)
    assert local.returncode == remote.returncode == 0, remote.stderr
    assert stable(json.loads(remote.stdout)) == stable(json.loads(local.stdout))
    assert "share: " + server in remote.stderr
    text_local, text_remote = cli(), cli("--server", server)
    assert untimed(text_remote.stdout)[1:] == untimed(text_local.stdout)[1:]
    refused = cli("--server", server, "--call", "float33[1]")
    assert refused.returncode == 2 and "float33" in refused.stderr
    gone = cli("--server", "http://127.0.0.1:9")
    assert gone.returncode == 1 and "no answer" in gone.stderr


def test_the_remote_cli_needs_neither_tensorflow_nor_streamlit(server, tmp_path):
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\nclass Block:\n    def find_spec(self, name, *a):\n"
        "        if name.split('.')[0] in ('tensorflow', 'streamlit', 'numpy'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path), PLAYGROUND_API_TOKEN=TOKEN)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "playground",
            "analyze",
            "-",
            "--function",
            "process",
            "--call",
            "float32[3]",
            "--server",
            server,
        ],
        input=RETRACING.source,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "process: 1 trace(s) in 1 call(s)" in done.stdout


def test_the_notebook_magic_sends_its_cell_to_the_server(server):
    """%%tf_playground --server: the cell runs on the server, nothing in the kernel."""
    from playground.jupyter import magic

    args = magic.parse(
        magic.cell_parser(),
        f'--server {server} --token {TOKEN} --function process --call "float32[3]" --call "float32[2]"',
    )
    namespace: dict = {}
    view = magic.run_cell(args, RETRACING.source, namespace, number=1)
    assert namespace == {}
    [process] = view.report.functions
    assert [(c.retraced, c.reason) for c in process.calls] == [
        (True, "first call"),
        (True, "x: shape (3,) -> (2,)"),
    ]
    assert view.report.sandbox is not None and view.share_url.startswith(server)
    page = view._repr_html_()
    assert 'class="tfp-calls"' in page and 'href="' + server in page
    no_host_path(page)


# -- the OpenAPI document -----------------------------------------------------------------------
def test_the_openapi_document_is_valid_and_names_every_field(server):
    from openapi_spec_validator import validate

    document = ask(server, "GET", "/api/v1/openapi.json", client="198.51.100.15").body
    validate(document)
    schemas = document["components"]["schemas"]

    def named(cls: Any) -> None:
        properties = schemas[cls.__name__]["properties"]
        for f in dataclasses.fields(cls):
            assert f.name in properties, (cls.__name__, f.name)
            hint = typing.get_type_hints(cls)[f.name]
            for inner in [hint, *typing.get_args(hint)]:
                for part in [inner, *typing.get_args(inner)]:
                    if dataclasses.is_dataclass(part):
                        named(part)

    named(JobRequest)
    named(Report)
    # Every field of a Job a client may set is a request field; the rest are the server's own.
    server_side = {"export", "verify", "attachments"}  # files on the server's disk
    assert {f.name for f in dataclasses.fields(Job)} - server_side <= set(schemas["JobRequest"]["properties"])


@pytest.fixture
def api_schema(server):
    return schemathesis.openapi.from_url(f"{server}/api/v1/openapi.json")


FUZZED = schemathesis.pytest.from_fixture("api_schema")
FUZZ_CLIENTS = itertools.count(1)


@FUZZED.parametrize()
@hypothesis.settings(max_examples=25, deadline=None, suppress_health_check=list(hypothesis.HealthCheck))
def test_every_route_keeps_to_its_document_under_generated_requests(case):
    """No 500, no undeclared status or body, no hang, no host path, whatever the request."""
    # Each case its own client (from the benchmarking range), so that the per-client limits
    # answer few of them and the routes themselves answer the rest.
    number = next(FUZZ_CLIENTS)
    response = case.call(headers={"X-Forwarded-For": f"198.18.{number // 256}.{number % 256}"}, timeout=120)
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
    no_host_path(response.text)
