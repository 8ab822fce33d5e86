"""The API refuses before it parses: hostile clients against a real server (the front door, the
routes, uvicorn), with a flooding executor at the seam instead of the sandbox."""

from __future__ import annotations

import http.client
import json
import socket
from urllib.parse import urlsplit

import pytest
from browser_support import streamlit_server
from sandbox_support import poll

from playground.api.routes import STREAM_EVENTS, _Relay
from playground.contract.errors import Cancelled
from playground.front_door.middleware import DoorLimits, FrontDoor

TOKEN = "hostile-test-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    marker = tmp_path_factory.mktemp("marker") / "cancelled"
    env = {
        "PLAYGROUND_CLIENT_IP_HEADER": "X-Forwarded-For",
        "PLAYGROUND_API_TOKENS": f"t={TOKEN}",
        "PLAYGROUND_RUNS_PER_MINUTE": "1000",
        "PLAYGROUND_REQUESTS_PER_SECOND": "100",
        "PLAYGROUND_REQUEST_BURST": "200",
        "PLAYGROUND_TEST_MARKER": str(marker),
        "STREAMLIT_SERVER_MAX_UPLOAD_SIZE": "1",
    }  # the body cap: 1 MB + 64 KiB
    with streamlit_server(executor="hostile_jobs:flooding", env=env) as (url, process):
        yield url, marker


def post(url: str, body: bytes, headers: dict, client: str = "198.51.100.40"):
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request("POST", "/api/v1/analyze", body, {"X-Forwarded-For": client, **headers})
        answer = connection.getresponse()
        return answer.status, answer.getheader("content-type") or "", answer.read()
    finally:
        connection.close()


JSON = {"Content-Type": "application/json"}


def test_a_foreign_pages_simple_post_runs_nothing(server):
    url, _ = server
    source = b'{"source": "# flood 1"}'
    status, _, _ = post(url, source, {"Content-Type": "text/plain", "Origin": "https://evil.example"})
    assert status == 415  # it ran a job (200) before
    status, kind, body = post(url, source, {**JSON, "Origin": "https://evil.example"})
    assert status == 403 and kind == "application/json"
    assert "evil.example" in json.loads(body)["error"]["message"]
    own = f"http://{urlsplit(url).netloc}"
    for allowed in (
        {**JSON, "Origin": own},
        JSON,  # the page itself; curl and the CLI
        {**JSON, "Origin": "https://evil.example", "Authorization": f"Bearer {TOKEN}"},
    ):
        assert post(url, source, allowed)[0] == 200, allowed


MALFORMED = [
    b"{" * 100_000 + b"}" * 100_000,
    b"[" * 100_000 + b"]" * 100_000,
    b'{"source": "x", "calls": ["float32[' + b"9" * 5000 + b']"]}',
    '{"source": "x", "calls": ["float32[²]"]}'.encode(),
    '{"source": "x", "signature": "float32[³]"}'.encode(),
    '{"source": "x", "sweep": "x[0]=١٦"}'.encode(),
    b'{"source": "x", "calls": ["n=1' + b"0" * 5000 + b'"]}',
    b'{"source": "x", "timeout_s": NaN}',
    b'{"source": "x", "timeout_s": 1e999}',
    b'{"source": 5}',
    b"[]",
    b'"x"',
    b"\xff\xfe\x00",
    b"",
    b"{}",
    b'{"source": "x", "calls": "float32[2]"}',
    b'{"source": "x", "timing": "yes"}',
]


@pytest.mark.parametrize("body", MALFORMED, ids=range(len(MALFORMED)))
def test_every_malformed_body_is_a_4xx_in_json(server, body):
    status, kind, answer = post(server[0], body, JSON)
    assert 400 <= status < 500, (status, answer[:300])  # four of these were 500s
    assert kind == "application/json"
    assert json.loads(answer)["error"]["message"]


HUGE_DIMS = ",".join(["999999999999999999"] * 254)
# Each names the field that cannot run ("" the body as a whole). The first five were 500s after
# the 4xx for the ones above: a lone surrogate broke the answer's encoding or the share link's,
# and 254 18-digit dims made the element count too long for str().
NAMED = [
    (b'{"source": "x", "\\ud800": 1}', ""),
    (b'{"source": "x", "function": "\\ud800"}', ""),
    (b'{"source": "x", "tf_version": "\\udfff"}', ""),
    (b'{"source": "x", "calls": ["float32[' + HUGE_DIMS.encode() + b']"]}', "calls[0]"),
    (b'{"source": "x", "calls": ["float32[1]", "n=1, x=float32[' + HUGE_DIMS.encode() + b']"]}', "calls[1]"),
    (b"[" * 65 + b"]" * 65, ""),
    (b'{"source": "x", "calls": [' + b"[" * 64 + b"]" * 64 + b"]}", ""),
    (b'{"source": "x", "calls": ["float32[' + b"1" * 19 + b']"]}', "calls[0]"),
    (b'{"source": "x", "signature": "float32[' + b",".join([b"1"] * 255) + b']"}', "signature"),
    ('{"source": "x", "calls": ["float32[²]"]}'.encode(), "calls[0]"),
    ('{"source": "x", "signature": "float32[³]"}'.encode(), "signature"),
    ('{"source": "x", "sweep": "x[0]=١٦"}'.encode(), "sweep"),
    ('{"source": "x", "compare": "signature=float32[²]"}'.encode(), "compare"),
    (b'{"source": "x", "timeout_s": NaN}', ""),
    (b'{"source": "x", "timing_budget_s": 1e999}', "timing_budget_s"),
    (b'{"source": "x", "' + b"k" * 100_000 + b'": 1}', "k" * 2000 + "..."),
]


@pytest.mark.parametrize("body, field", NAMED, ids=range(len(NAMED)))
def test_a_malformed_body_is_a_400_that_names_its_field(server, body, field):
    status, kind, answer = post(server[0], body, JSON)
    assert status == 400 and kind == "application/json", (status, answer[:300])
    error = json.loads(answer)["error"]
    assert error["status"] == 400 and error["field"] == field, error
    assert 0 < len(error["message"]) < 2100  # never the request's megabytes echoed


F_OF_ANY = "def f(*args, **kwargs):\n    return 1\n"
# Issue 55: refusals that cost the server more than a Run (0.13 to 0.21 CPU-s), now refused by a
# count before the body is decoded or the plan parsed; bench/bench_refusals.py measures them.
COUNTED = [
    (b'{"source": "x", "calls": [' + b'"",' * 350_000 + b'""]}', "", "JSON values"),  # 1 MB
    (
        json.dumps(
            {"source": F_OF_ANY, "function": "f", "calls": ["[" + ",".join(["1"] * 32_000) + "]"]}
        ).encode(),
        "calls",
        "the limit is 512",
    ),  # a 64 KB literal: it ran
    (
        json.dumps(
            {"source": F_OF_ANY, "function": "f", "calls": [",".join(["1"] * 32_000) + ",@"]}
        ).encode(),
        "calls",
        "the limit is 512",
    ),
]


@pytest.mark.parametrize("body, field, words", COUNTED, ids=["values", "literal", "arguments"])
def test_a_flood_of_values_is_refused_by_its_count(server, body, field, words):
    status, kind, answer = post(server[0], body, JSON)
    assert status == 400 and kind == "application/json", (status, answer[:300])
    error = json.loads(answer)["error"]
    assert error["field"] == field and words in error["message"], error


def raw_request(url: str, head: bytes, body_chunks=(), read: int = 200) -> bytes:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    try:
        sock.sendall(head)
        try:
            for chunk in body_chunks:
                sock.sendall(chunk)
        except OSError:
            pass
        return sock.recv(read)
    finally:
        sock.close()


def test_content_length_with_chunked_is_a_400_before_the_body(server):
    head = (
        b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * (1 << 20)
    answer = raw_request(server[0], head, [b"%x\r\n" % len(chunk) + chunk + b"\r\n"] * 40)
    assert answer.startswith(b"HTTP/1.1 400"), answer  # 40 MiB went in before


def test_two_content_lengths_are_a_400(server):
    head = (
        b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"
    )
    assert raw_request(server[0], head).startswith(b"HTTP/1.1 400")


def test_a_stream_whose_client_leaves_stops_its_job(server):
    url, marker = server
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request(
        "POST",
        "/api/v1/analyze",
        b'{"source": "# flood 100000000"}',
        {**JSON, "Accept": "application/x-ndjson", "X-Forwarded-For": "198.51.100.41"},
    )
    answer = connection.getresponse()
    assert json.loads(answer.readline())["event"] in ("queued", "started", "timing")
    connection.sock.shutdown(socket.SHUT_RDWR)
    connection.close()
    assert poll(marker.exists, timeout_s=20), "the job went on after its client left"


def test_a_slow_reader_holds_a_bounded_number_of_events():
    """The relay between the run's thread and the stream, driven as the run would drive it."""
    import asyncio

    relay = _Relay(asyncio.new_event_loop())
    for index in range(100_000):
        relay.put({"event": "timing", "progress": index})
    events = list(iter(relay.pop, None))
    assert len(events) == STREAM_EVENTS and events[-1]["progress"] == 99_999
    relay.gone = True
    with pytest.raises(Cancelled):
        relay.put({"event": "timing"})


def test_the_body_cap_counts_the_bytes_read_whatever_the_headers_said():
    """An ASGI server that let more through than Content-Length said: the door still stops it."""
    import asyncio

    seen: dict = {}

    async def app(scope, receive, send):
        message = await receive()
        while message["type"] == "http.request" and message.get("more_body"):
            message = await receive()
        seen["last"] = message["type"]
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ran"})

    limits = DoorLimits(
        sessions_per_client=4,
        messages_per_second=10,
        message_burst=10,
        max_message_bytes=1 << 20,
        requests_per_second=10,
        request_burst=10,
        max_body_bytes=1000,
        allowed_origins=(),
        client_ip_header="",
    )
    door = FrontDoor(app, limits)
    chunks = [{"type": "http.request", "body": b"x" * 600, "more_body": True}] * 3
    sent: list = []

    async def receive():
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "path": "/upload",
        "method": "POST",
        "headers": [(b"content-length", b"10")],
        "client": ("198.51.100.42", 1),
    }
    asyncio.run(door(scope, receive, send))
    assert sent[0]["status"] == 413 and seen["last"] == "http.disconnect"
    assert all(m.get("body") != b"ran" for m in sent)


def test_a_client_that_closes_after_its_request_reads_the_413_of_a_body_sent_whole(server):
    """urllib, as the remote CLI sends: the whole body, then `Connection: close`, then it reads.
    uvicorn closes such a connection once the answer is out: with the body unread the kernel
    answered the rest with a reset, and urllib saw no 413, only ConnectionResetError."""
    import urllib.error
    import urllib.request

    asked = urllib.request.Request(
        server[0] + "/api/v1/analyze",
        data=b"x" * (8 << 20),
        headers={**JSON, "X-Forwarded-For": "198.51.100.43"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(asked, timeout=60)
    assert refused.value.code == 413
    assert "larger than" in json.loads(refused.value.read())["error"]["message"]


def test_a_refusal_is_in_the_clients_language(server):
    """The body is parsed and checked off the event loop: the language goes with it."""
    body = b'{"source": "x", "calls": ["float33[2]"]}'
    english = json.loads(post(server[0], body, JSON)[2])["error"]["message"]
    chinese = json.loads(post(server[0], body, {**JSON, "Accept-Language": "zh-CN"})[2])
    assert "unknown dtype" in english and chinese["error"]["field"] == "calls[0]"
    assert "unknown dtype" not in chinese["error"]["message"]
    deep = json.loads(post(server[0], b"[" * 100 + b"]" * 100, {**JSON, "Accept-Language": "zh-CN"})[2])
    assert "nested" not in deep["error"]["message"], deep
