"""The operator's doors at the ASGI seam: GET /api/v1/ready (the readiness probe), a Run asked
of a server that is warming up or in maintenance, and GET /metrics for the allowed addresses
only. The real routes, with an executor still importing TensorFlow in the pool's place
(runs/shared.py's PLAYGROUND_UI_EXECUTOR seam)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import threading

import pytest
from sandbox_support import poll
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
    return asyncio.run(asgi(Starlette(routes=api.routes()), method, path, body, peer))


async def asgi(
    app: Starlette, method: str, path: str, body: bytes = b"", peer: str = "198.51.100.61"
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
    await app(scope, receive, send)
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


NAMES = {"localhost": ["127.0.0.1", "::1"], "prometheus": ["172.18.0.5"]}


def table_lookup(host: str) -> list[str]:
    """A resolver that knows NAMES, at the seam where the real one asks getaddrinfo."""
    if host not in NAMES:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return NAMES[host]


@pytest.mark.parametrize(
    ("peer", "setting", "allowed"),
    [
        ("127.0.0.1", "10.0.0.0/8,localhost", True),  # the name resolves to the peer
        ("::ffff:172.18.0.5", "prometheus", True),
        ("10.9.9.9", "localhost", False),  # it resolves, to another address
        ("127.0.0.1", "no-such-host.invalid", False),  # it does not resolve: nothing allowed
        ("testclient", "localhost", False),  # no peer address
        ("127.0.0.1", "127.0.0.1/32; rm -rf", False),  # not a host name: never looked up
    ],
)
def test_a_host_name_in_the_setting_allows_the_address_it_resolves_to(peer, setting, allowed):
    from playground.api.operator_metrics import Resolver, hosts, named

    resolver = Resolver(table_lookup)
    resolver.watch(hosts(setting))
    assert poll(lambda: resolver.lookups >= len(hosts(setting)))
    assert named(peer, setting, resolver) is allowed
    assert "10.0.0.0/8" not in hosts(setting)
    resolver.close()


def test_a_names_new_address_is_found_by_the_next_refresh():
    from playground.api.operator_metrics import Resolver

    names = {"prometheus": ["172.18.0.5"]}
    resolver = Resolver(lambda host: names[host], refresh_s=0.05)
    assert resolver.addresses(["prometheus"]) == frozenset()  # asked: looked up from now on
    assert poll(lambda: ipaddress.ip_address("172.18.0.5") in resolver.addresses(["prometheus"]))
    names["prometheus"] = ["172.18.0.9"]  # the service restarted elsewhere
    assert poll(lambda: ipaddress.ip_address("172.18.0.9") in resolver.addresses(["prometheus"]))
    assert ipaddress.ip_address("172.18.0.5") not in resolver.addresses(["prometheus"])
    resolver.close()


def test_a_slow_resolver_delays_no_scrape_and_no_other_request(server, monkeypatch):
    """The issue: a scrape from a refused address waited on a 4-s lookup, and other visitors'
    refusals waited up to 7 s behind it (lookups held the event loop's thread pool, where the API
    decodes bodies). Here the lookup never answers while the requests are made: every scrape is
    answered (403, from the addresses known so far), a body is refused (400), and the name was
    looked up once, off their path."""
    from playground.api import operator_metrics

    release, asked = threading.Event(), []

    def hung(host, *args, **kwargs):  # socket.getaddrinfo's seam: before and after the change
        asked.append(host)
        release.wait(60)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", hung)
    monkeypatch.setattr(operator_metrics, "RESOLVER", operator_metrics.Resolver())
    monkeypatch.setenv("PLAYGROUND_METRICS_ALLOW", "127.0.0.1/32,prometheus")
    app = Starlette(routes=api.routes())

    async def scenario():
        scrapes = [asgi(app, "GET", "/metrics", peer="198.51.100.62") for _ in range(12)]
        refused = asgi(app, "POST", "/api/v1/analyze", b'{"source": ', peer="198.51.100.63")
        return await asyncio.wait_for(asyncio.gather(*scrapes, refused), 30)  # a guard, not a figure

    try:
        answers = asyncio.run(scenario())
        assert poll(lambda: asked == ["prometheus"]) and not release.is_set()  # once, still hung
    finally:
        release.set()
        operator_metrics.RESOLVER.close()
    assert [status for status, _headers, _body in answers] == [403] * 12 + [400]


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
