"""GET /api/v1/ready, the readiness probe, and a Run asked of a server that is warming up: the
real routes at the ASGI seam, with an executor that is still importing TensorFlow in the pool's
place (runs/shared.py's PLAYGROUND_UI_EXECUTOR seam)."""

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
def server(monkeypatch):
    monkeypatch.setenv(shared.EXECUTOR_ENV, f"{__name__}:warming")
    Warming.left, Warming.jobs = 7.2, 0
    return Warming


def call(method: str, path: str, body: bytes = b"") -> tuple[int, dict[str, str], dict]:
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
        "client": ("198.51.100.61", 5000),
        "server": ("testserver", 80),
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode())],
    }  # fmt: skip
    asyncio.run(Starlette(routes=api.routes())(scope, receive, send))
    return sent["status"], sent["headers"], json.loads(sent["body"])


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
