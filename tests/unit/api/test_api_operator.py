"""The operator's doors at the ASGI seam: GET /api/v1/ready (the readiness probe), a Run asked
of a server that is warming up or in maintenance, and GET /metrics for the allowed addresses
only. The real routes, with an executor still importing TensorFlow in the pool's place
(runs/shared.py's PLAYGROUND_UI_EXECUTOR seam)."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.applications import Starlette

from playground import api
from playground.contract.job import Job, Report
from playground.runs import shared


class Warming:
    left: float | None = 7.2
    jobs = 0

    def warming_s(self) -> float | None:
        return Warming.left

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        Warming.jobs += 1
        return Report("2.21.0", "CPU", "ok", None, "", [], [])

    def close(self) -> None:
        pass


def warming() -> Warming:
    return Warming()


@pytest.fixture
def server(monkeypatch, tmp_path):
    monkeypatch.setenv(shared.EXECUTOR_ENV, f"{__name__}:warming")
    monkeypatch.setenv("PLAYGROUND_MAINTENANCE_FILE", str(tmp_path / "maintenance"))
    monkeypatch.setattr(shared, "_executors", {})  # made afresh, with this test's settings
    Warming.left, Warming.jobs = 7.2, 0
    Warming.maintenance = tmp_path / "maintenance"
    return Warming


def call(
    method: str, path: str, body: bytes = b"", peer: str = "198.51.100.61"
) -> tuple[int, dict[str, str], dict | str]:
    sent: dict = {"body": b""}

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            sent["status"] = message["status"]
            sent["headers"] = {k.decode(): v.decode() for k, v in message["headers"]}
        else:
            sent["body"] += message.get("body", b"")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "client": (peer, 5000),
        "server": ("testserver", 80),
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode())],
    }  # fmt: skip
    asyncio.run(Starlette(routes=api.routes())(scope, receive, send))
    text = sent["body"].decode()
    is_json = sent["headers"].get("content-type", "").startswith("application/json")
    return sent["status"], sent["headers"], json.loads(text) if is_json else text


def test_ready_says_503_with_retry_after_while_warming_then_200(server):
    status, headers, body = call("GET", "/api/v1/ready")
    assert (status, headers["retry-after"], body) == (503, "8", {"ready": False, "warming_s": 7})
    server.left = None
    status, _headers, body = call("GET", "/api/v1/ready")
    assert (status, body) == (200, {"ready": True})


def test_a_run_asked_while_warming_is_refused_with_503_and_never_reaches_the_executor(server):
    request = json.dumps({"source": "x = 1\n"}).encode()
    status, headers, body = call("POST", "/api/v1/analyze", request)
    assert status == 503 and headers["retry-after"] == "8"
    assert "Warming up" in body["error"]["message"] and "about 7 s" in body["error"]["message"]
    assert server.jobs == 0


def test_maintenance_refuses_new_runs_with_the_operators_words_until_the_file_goes(server):
    server.left = None
    server.maintenance.write_text("Upgrading TensorFlow;\n back at 14:00 UTC.\n")
    status, headers, body = call("GET", "/api/v1/ready")
    assert (status, body) == (
        503,
        {"ready": False, "maintenance": "Upgrading TensorFlow; back at 14:00 UTC."},
    )
    request = json.dumps({"source": "x = 1\n"}).encode()
    status, headers, body = call("POST", "/api/v1/analyze", request)
    assert status == 503 and body["error"]["message"] == "Upgrading TensorFlow; back at 14:00 UTC."
    assert server.jobs == 0
    server.maintenance.unlink()
    status, _headers, body = call("POST", "/api/v1/analyze", request)
    assert status == 200 and server.jobs == 1


def test_metrics_answer_the_allowed_addresses_in_prometheus_text_and_no_one_else(server):
    server.left = None
    call("POST", "/api/v1/analyze", json.dumps({"source": "x = 1\n"}).encode())
    status, headers, text = call("GET", "/metrics", peer="127.0.0.1")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=")
    samples = {line.split(" ")[0]: float(line.split(" ")[1]) for line in text.splitlines() if line[:1] != "#"}
    assert samples['playground_runs_total{outcome="ok"}'] >= 1
    assert samples["playground_run_seconds_count"] >= 1 and "playground_queue_depth" in samples
    assert samples["playground_warming_seconds"] == 0 and "process_resident_memory_bytes" in samples
    assert "playground_api_streams" in samples
    status, _headers, text = call("GET", "/metrics", peer="198.51.100.61")
    assert status == 403 and "PLAYGROUND_METRICS_ALLOW" in text and "playground_runs" not in text


@pytest.mark.parametrize(
    ("peer", "setting", "allowed"),
    [
        ("127.0.0.1", "127.0.0.1/32,::1/128", True),
        ("::1", "127.0.0.1/32,::1/128", True),
        ("::ffff:127.0.0.1", "127.0.0.1/32,::1/128", True),  # a dual-stack socket's IPv4 peer
        ("::ffff:10.1.2.3", "127.0.0.1/32,::1/128", False),
        ("10.1.2.3", "10.0.0.0/8", True),
        ("10.1.2.3", "127.0.0.1/32", False),
        ("10.1.2.3", "not a network, 10.1.2.0/24", True),
        ("", "0.0.0.0/0", False),
        ("testclient", "0.0.0.0/0", False),
    ],
)
def test_which_peers_may_read_the_metrics(peer, setting, allowed):
    from playground.api.operator_metrics import allowed as may_read

    assert may_read(peer, setting) is allowed


@pytest.mark.parametrize(
    ("peer", "setting", "allowed"),
    [
        ("127.0.0.1", "10.0.0.0/8,localhost", True),  # the name resolves to the peer
        ("10.9.9.9", "localhost", False),  # it resolves, to another address
        ("127.0.0.1", "no-such-host.invalid", False),  # it does not resolve: nothing allowed
        ("testclient", "localhost", False),  # no peer address
        ("127.0.0.1", "127.0.0.1/32; rm -rf", False),  # not a host name: never looked up
    ],
)
def test_a_host_name_in_the_setting_allows_the_address_it_resolves_to(peer, setting, allowed):
    import asyncio

    from playground.api.operator_metrics import hosts, named

    assert asyncio.run(named(peer, setting)) is allowed
    assert "10.0.0.0/8" not in hosts(setting)


@pytest.mark.parametrize(
    "source",
    [
        "def f(x=" + "-" * 600 + "1):\n    return x\n",  # a default 600 levels deep
        "def f(x: " + ".".join(["a"] * 600) + "):\n    return x\n",  # an annotation
        "x = " + "-" * 5000 + "1\n",  # a statement Python's own parser cannot read
    ],
    ids=["default", "annotation", "statement"],
)
def test_code_nested_too_deep_is_a_400_that_names_it_never_a_500(server, source):
    server.left = None  # warm: the request goes as far as reading the code
    status, _headers, body = call(
        "POST", "/api/v1/analyze", json.dumps({"source": source, "function": "f"}).encode()
    )
    assert status == 400, body
    assert "nested" in body["error"]["message"] and "150" in body["error"]["message"]
    assert server.jobs == 0
