"""The front door's limiter, message checks and middleware, driven at the ASGI seam: a token
bucket per client, coalesced reruns, a session cap, the size and shape of messages, HTTP rates
and Origins. tests/integration/test_front_door_server.py drives the same door in a real `streamlit run`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import time

import pytest
from fake_clock import Clock
from streamlit.proto.BackMsg_pb2 import BackMsg

from playground.contract import job_request
from playground.contract.config import Settings
from playground.front_door import back_messages
from playground.front_door.back_messages import Kind, Malformed
from playground.front_door.buckets import ClientTable, TokenBucket
from playground.front_door.middleware import HELD_PER_SESSION, DoorLimits, FrontDoor, origin_allowed, origins


def rerun(query: str = "", press: bool = False) -> bytes:
    message = BackMsg()
    message.rerun_script.query_string = query
    if press:
        widget = message.rerun_script.widget_states.widgets.add()
        widget.id, widget.trigger_value = "run", True
    return message.SerializeToString()


def heartbeat() -> bytes:
    message = BackMsg()
    message.app_heartbeat = True
    return message.SerializeToString()


# -- the bucket -------------------------------------------------------------------------------
def test_a_bucket_gives_its_burst_then_its_rate():
    bucket = TokenBucket(rate=2.0, burst=3)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.wait_s(0.0) == pytest.approx(0.5)
    assert not bucket.take(0.4)
    assert bucket.take(0.5)
    assert bucket.full(10.0)  # refilled to the brim after a long pause
    assert [bucket.take(10.0) for _ in range(4)] == [True, True, True, False]


def test_idle_clients_leave_the_table():
    clock = Clock()
    table: ClientTable[TokenBucket] = ClientTable(
        lambda: TokenBucket(1.0, 2), lambda b, now: b.full(now), clock, sweep_every=4
    )
    for n in range(3):
        table[f"one-off {n}"].take(clock.now)
    clock.now += 60
    table["regular"].take(clock.now)  # the 4th use sweeps: the one-offs are full again
    assert len(table) == 1


# -- what a message is ------------------------------------------------------------------------
def test_messages_are_told_apart():
    assert back_messages.classify(rerun("example=retracing")) is Kind.RERUN
    assert back_messages.classify(rerun(press=True)) is Kind.PRESS
    assert back_messages.classify(heartbeat()) is Kind.OTHER


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xff\xff",  # not protobuf
        rerun("example=retracing")[:-3],  # truncated
        b"",  # no type at all
        heartbeat() + b"\xf8\x07\x01",  # a field number the protocol does not have
    ],
)
def test_what_no_browser_sends_is_malformed(data):
    with pytest.raises(Malformed):
        back_messages.classify(data)


def test_unknown_fields_are_found_inside_nested_messages():
    inner = BackMsg()
    inner.rerun_script.query_string = "a"
    data = inner.SerializeToString()
    # rerun_script, length-delimited, with an unknown varint field appended inside it.
    number = BackMsg.DESCRIPTOR.fields_by_name["rerun_script"].number
    payload = BackMsg.FromString(data).rerun_script.SerializeToString() + b"\xf8\x07\x01"
    forged = bytes([(number << 3) | 2, len(payload)]) + payload
    assert BackMsg.FromString(forged).rerun_script.query_string == "a"
    with pytest.raises(Malformed):
        back_messages.classify(forged)


def test_random_bytes_never_pass_as_a_known_message_with_extra_fields():
    rng = random.Random(24)
    for _ in range(2000):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        try:
            kind = back_messages.classify(data)
        except Malformed:
            continue
        parsed = BackMsg.FromString(data)  # what passes is a real, complete message
        assert parsed.WhichOneof("type") is not None and kind in Kind


# -- origins ----------------------------------------------------------------------------------
def test_origins():
    allowed = origins(" https://Play.Example.org/ , https://docs.example.org:8443")
    assert allowed == ("https://play.example.org", "https://docs.example.org:8443")
    assert origin_allowed(None, "x:1", ())  # not a browser
    assert origin_allowed("https://pg.example.org", "pg.example.org", ())  # same origin
    assert origin_allowed("http://localhost:3000", "pg.example.org", ())
    assert origin_allowed("https://play.example.org", "10.0.0.2:8501", allowed)
    assert not origin_allowed("https://evil.example", "pg.example.org", allowed)
    assert not origin_allowed("https://play.example.org:444", "x", allowed)
    assert not origin_allowed("null", "pg.example.org", allowed)


# -- the middleware, at the ASGI seam ---------------------------------------------------------
class Recorder:
    """The app behind the door: it accepts each websocket and keeps every message it gets,
    as Streamlit would get them, until the client leaves."""

    def __init__(self) -> None:
        self.got: list[bytes] = []
        self.http = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.http += 1
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            self.got.append(message["bytes"])


class Client:
    """One websocket's far end: a queue of what it sends, and a list of what it got."""

    def __init__(self, address: str = "203.0.113.1", origin: str | None = None) -> None:
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.sent: list[dict] = []
        headers = [(b"host", b"pg.example.org"), (b"x-forwarded-for", address.encode())]
        if origin:
            headers.append((b"origin", origin.encode()))
        self.scope = {
            "type": "websocket",
            "path": "/_stcore/stream",
            "headers": headers,
            "client": ("10.0.0.9", 40000),
            "extensions": {"websocket.http.response": {}},
        }
        self.inbox.put_nowait({"type": "websocket.connect"})

    def through(self, front: FrontDoor) -> asyncio.Future:
        """Opens this websocket through the door; the task ends when the session does."""
        return asyncio.ensure_future(front(self.scope, self.receive, self.send))

    def say(self, *datas: bytes) -> None:
        for data in datas:
            self.inbox.put_nowait({"type": "websocket.receive", "bytes": data})

    def leave(self) -> None:
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})

    async def receive(self):
        return await self.inbox.get()

    async def send(self, message):
        self.sent.append(message)

    def closed_with(self):
        codes = [m.get("code") for m in self.sent if m["type"] == "websocket.close"]
        statuses = [m["status"] for m in self.sent if m["type"] == "websocket.http.response.start"]
        return codes + statuses


def door(clock=None, preload=(), **limits) -> tuple[FrontDoor, Recorder, Clock]:
    """A door with the default settings, but for `limits`, trusting X-Forwarded-For; on a
    standing Clock unless given another."""
    clock, app = clock or Clock(), Recorder()
    defaults = DoorLimits.from_settings(Settings(), max_upload_bytes=4 * 10**6)
    chosen = dataclasses.replace(defaults, **{"client_ip_header": "X-Forwarded-For", **limits})
    return FrontDoor(app, chosen, clock, preload), app, clock


async def settle():
    """Lets the door read everything already sent (no token arrives: the clock stands still)."""
    await asyncio.sleep(0.05)


async def until(condition, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def queries(app: Recorder) -> list[str]:
    return [BackMsg.FromString(d).rerun_script.query_string for d in app.got]


# These two run on the real clock: a token comes back every 0.2 s, long after the door has read
# everything the client sent at once (a few ms), and what passes then no longer depends on time.
def test_reruns_beyond_the_rate_are_coalesced_to_the_latest():
    async def scenario():
        front, app, _clock = door(time.monotonic, messages_per_second=5.0, message_burst=2)
        client = Client()
        task = client.through(front)
        client.say(*(rerun(f"n={n}") for n in range(10)))
        await until(lambda: len(app.got) == 3)
        await asyncio.sleep(0.5)  # two more tokens: nothing else is waiting
        assert queries(app) == ["n=0", "n=1", "n=9"]
        client.leave()
        await task
        assert front.counts["coalesced"] == 7 and client.closed_with() == []

    asyncio.run(scenario())


def test_a_button_press_is_never_coalesced_away():
    async def scenario():
        front, app, _clock = door(time.monotonic, messages_per_second=5.0, message_burst=1)
        client = Client()
        task = client.through(front)
        client.say(rerun("first"), rerun("press", press=True), rerun("a"), rerun("b"))
        await until(lambda: len(app.got) == 3)
        await asyncio.sleep(0.5)
        assert queries(app) == ["first", "press", "b"]
        assert back_messages.classify(app.got[1]) is Kind.PRESS
        client.leave()
        await task

    asyncio.run(scenario())


def test_one_clients_bucket_is_shared_by_its_tabs_and_not_by_others():
    async def scenario():
        front, app, _clock = door(messages_per_second=0.001, message_burst=3)
        tabs = [Client("203.0.113.66") for _ in range(3)]
        other = Client("203.0.113.2")
        tasks = [c.through(front) for c in tabs + [other]]
        for tab in tabs:
            tab.say(*(rerun("flood") for _ in range(5)))
        await settle()
        assert len(app.got) == 3  # the flooding client's burst, over all its tabs
        other.say(rerun("visitor"))
        await settle()
        assert BackMsg.FromString(app.got[-1]).rerun_script.query_string == "visitor"
        for c in tabs + [other]:
            c.leave()
        await asyncio.gather(*tasks)

    asyncio.run(scenario())


def test_a_session_that_keeps_pressing_beyond_the_rate_is_bounded_not_dropped():
    async def scenario():
        front, app, _clock = door(messages_per_second=1.0, message_burst=1)
        client = Client()
        task = client.through(front)
        client.say(*(rerun(f"press {n}", press=True) for n in range(20)))
        await settle()
        # One passed, HELD_PER_SESSION wait, and each press beyond replaced the last one waiting.
        assert len(app.got) == 1 and front.counts["coalesced"] == 19 - HELD_PER_SESSION
        client.leave()
        await asyncio.wait_for(task, 5)
        assert client.closed_with() == []

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "data, code",
    [
        (os.urandom(64) + b"\xff\xff", 1002),
        (b"\x00" * (300 * 1024), 1009),
        (None, 1003),  # a text frame
    ],
    ids=["garbage", "oversize", "text"],
)  # stable names: the garbage is new each run
def test_a_bad_message_closes_that_session_and_no_other(data, code):
    async def scenario():
        front, app, _clock = door(max_message_bytes=256 * 1024)
        bad, good = Client("203.0.113.6"), Client("203.0.113.6")
        tasks = [c.through(front) for c in (bad, good)]
        if data is None:
            bad.inbox.put_nowait({"type": "websocket.receive", "text": "hello"})
        else:
            bad.say(data)
        await asyncio.wait_for(tasks[0], 5)
        good.say(rerun("still here"))
        await settle()
        assert bad.closed_with() == [code]
        assert [BackMsg.FromString(d).rerun_script.query_string for d in app.got] == ["still here"]
        good.leave()
        await tasks[1]

    asyncio.run(scenario())


def test_sessions_per_client_are_capped_and_freed_when_they_close():
    async def scenario():
        front, _app, _clock = door(sessions_per_client=2)
        tabs = [Client() for _ in range(3)]
        tasks = [c.through(front) for c in tabs]
        await settle()
        assert [t.closed_with() for t in tabs] == [[], [], [429]]
        assert front.open["203.0.113.1"] == 2
        tabs[0].leave()
        await tasks[0]
        again = Client()
        task = again.through(front)
        await settle()
        assert again.closed_with() == []
        for c in (tabs[1], again):
            c.leave()
        await asyncio.gather(tasks[1], task)
        assert not front.open

    asyncio.run(scenario())


def test_a_foreign_origin_is_refused_before_streamlit_sees_it():
    async def scenario():
        front, app, _clock = door()
        evil, same = Client(origin="https://evil.example"), Client(origin="https://pg.example.org")
        await front(evil.scope, evil.receive, evil.send)
        assert evil.closed_with() == [403] and front.counts["foreign origin"] == 1
        task = same.through(front)
        same.say(rerun())
        await settle()
        same.leave()
        await task
        assert same.closed_with() == [] and len(app.got) == 1

    asyncio.run(scenario())


def http(
    path: str = "/",
    address: str = "203.0.113.1",
    method: str = "GET",
    headers: tuple = ((b"accept", b"text/html"),),
    query: bytes = b"",
) -> dict:
    return {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query,
        "client": ("10.0.0.9", 1),
        "headers": [(b"x-forwarded-for", address.encode()), *headers],
    }


def call(front: FrontDoor, scope: dict) -> tuple[int, dict, bytes]:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(front(scope, receive, send))
    start = sent[0]
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, sent[1]["body"]


def test_http_requests_have_a_rate_and_health_and_assets_are_exempt():
    front, app, clock = door(requests_per_second=1.0, request_burst=3)
    assert [call(front, http("/_stcore/upload_file/s/f", method="PUT"))[0] for _ in range(4)] == [
        200,
        200,
        200,
        429,
    ]
    status, headers, body = call(front, http("/"))
    assert status == 429 and headers["retry-after"] == "1" and b"Too many requests" in body
    assert "text/html" in headers["content-type"]
    for path in ("/_stcore/health", "/static/js/main.js", "/editor/ace-1.45.2/ace.js"):
        assert call(front, http(path))[0] == 200
    assert call(front, http("/", address="203.0.113.2"))[0] == 200  # another client
    clock.now += 1.0
    assert call(front, http("/"))[0] == 200


def test_only_the_page_names_the_scripts_to_preload():
    """The page's answer tells the browser to fetch the editor's script at once; nothing else
    carries the header: not an asset, not a fetch, not a refusal."""
    front, _app, _clock = door(
        preload=("/editor/ace-1.45.2/ace.js",), request_burst=2, requests_per_second=0.001
    )
    status, headers, body = call(front, http("/"))
    assert status == 200 and body == b"ok"
    assert headers["link"] == "</editor/ace-1.45.2/ace.js>; rel=preload; as=script"
    assert "link" not in call(front, http("/static/js/main.js"))[1]
    assert "link" not in call(front, http("/_stcore/upload_file/s/f", method="PUT", headers=()))[1]
    status, headers, _body = call(front, http("/"))  # over the request rate
    assert status == 429 and "link" not in headers
    assert "link" not in call(door()[0], http("/"))[1]  # none to name


def test_a_body_over_the_cap_is_refused_before_it_is_read():
    front, app, _clock = door(max_body_bytes=1000)
    status, _headers, body = call(
        front, http("/_stcore/upload_file/s/f", method="PUT", headers=((b"content-length", b"100000000"),))
    )
    assert status == 413 and app.http == 0 and b"larger than" in body
    chunked = http("/_stcore/upload_file/s/f", method="PUT", headers=((b"transfer-encoding", b"chunked"),))
    assert call(front, chunked)[0] == 411


def test_an_api_body_larger_than_any_request_is_refused_before_it_is_read():
    """The API's cap is what a request can be (job_request.max_body_bytes, 1.2 MB by default),
    not the upload cap: the issue's 3.9 MB body of 1.3 M calls was read and decoded, at 0.2 CPU-s,
    to be refused for its number of calls. An upload of the same size still passes."""
    front, app, _clock = door(max_body_bytes=16 * 10**6)
    over = str(job_request.max_body_bytes(Settings()) + 1).encode()
    api = http(
        "/api/v1/analyze",
        method="POST",
        headers=((b"content-type", b"application/json"), (b"content-length", over)),
    )
    status, headers, body = call(front, api)
    assert status == 413 and app.http == 0 and headers["content-type"] == "application/json"
    assert (
        json.loads(body)["error"]["message"] == "The request is larger than this playground accepts (1.2 MB)."
    )
    upload = http("/_stcore/upload_file/s/f", method="PUT", headers=((b"content-length", over),))
    assert call(front, upload)[0] == 200 and app.http == 1


def test_the_page_says_why_when_too_many_tabs_are_open_in_the_visitors_language():
    async def scenario():
        front, _app, _clock = door(sessions_per_client=1)
        tab = Client()
        task = tab.through(front)
        await settle()
        sent: list[dict] = []

        async def receive():
            return {"type": "http.request", "body": b""}

        async def send(message):
            sent.append(message)

        await front(http("/", query=b"lang=zh"), receive, send)
        tab.leave()
        await task
        return sent

    sent = asyncio.run(scenario())
    assert sent[0]["status"] == 429
    page = sent[1]["body"].decode()
    assert "<html" in page and "1" in page
    # The Chinese catalog has the sentence and the title: no English is left on the page.
    assert "Too many" not in page and "playground</" not in page


def test_no_delay_reaches_the_connections_a_protocol_0_listener_accepts():
    """Streamlit's listener is made with protocol 0, which asyncio's own TCP_NODELAY skips: each
    answer on a kept-alive connection then waited for the client's delayed ACK (40 ms).
    hosting.no_delay sets it on the listener, and Linux hands it to what it accepts."""
    import socket

    from playground.front_door import hosting

    def accepted_nodelay(listener: socket.socket) -> int:
        with socket.create_connection(listener.getsockname()), listener.accept()[0] as server_side:
            return server_side.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)

    with socket.socket(family=socket.AF_INET) as listener:  # as Streamlit binds it
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        assert listener.proto == 0
        assert accepted_nodelay(listener) == 0  # the 40 ms stall's condition
        assert hosting.no_delay() >= 1
        assert accepted_nodelay(listener) != 0


# -- the API's cross-site and framing checks, at the ASGI seam ---------------------------------
def api_post(
    *headers: tuple[bytes, bytes],
    host: bytes = b"pg.example.org",
    scheme: str = "http",
    path: str = "/api/v1/analyze",
) -> dict:
    scope = http(
        path, method="POST", headers=((b"host", host), (b"content-type", b"application/json"), *headers)
    )
    return {**scope, "scheme": scheme}


@pytest.mark.parametrize(
    "headers, scheme, status",
    [
        ((), "http", 200),  # curl, the CLI
        (((b"origin", b"http://pg.example.org"),), "http", 200),  # the page itself
        (((b"origin", b"http://pg.example.org:80"),), "http", 200),  # its default port
        (((b"origin", b"https://pg.example.org"),), "http", 403),  # another scheme
        (((b"origin", b"http://localhost:3000"),), "http", 403),  # another local site
        (((b"origin", b"http://pg.example.org:8080"),), "http", 403),  # another port
        (((b"origin", b"null"),), "http", 403),  # a sandboxed frame
        (
            ((b"origin", b"http://pg.example.org"), (b"origin", b"http://pg.example.org")),
            "http",
            403,
        ),  # no browser sends two
        (((b"origin", b"https://docs.example.org"),), "http", 200),  # allowed (port 443)
        (((b"origin", b"https://evil.example"), (b"authorization", b"Bearer s3cret")), "http", 200),
        (((b"origin", b"https://evil.example"), (b"authorization", b"Bearer guess")), "http", 403),
    ],
    ids=[
        "no-origin",
        "same",
        "same-default-port",
        "other-scheme",
        "localhost",
        "other-port",
        "null",
        "two",
        "allowed",
        "token",
        "unknown-token",
    ],
)
def test_a_state_changing_api_call_comes_from_the_page_an_allowed_origin_or_a_token(headers, scheme, status):
    front, app, _clock = door(
        allowed_origins=origins("https://docs.example.org:443"), api_tokens={"s3cret": "ci"}
    )
    answer = call(front, api_post(*headers, scheme=scheme))
    assert answer[0] == status, answer
    assert app.http == (1 if status == 200 else 0)  # a refused call never reaches the API
    if status == 403:
        assert answer[1]["content-type"] == "application/json"
        assert json.loads(answer[2])["error"]["status"] == 403


def test_behind_the_trusted_proxy_the_pages_scheme_is_the_proxys():
    """nginx terminates TLS (X-Forwarded-Proto: https): the page's origin is https://host."""
    front, _app, _clock = door()  # trusts X-Forwarded-For: behind the proxy
    tls = api_post((b"origin", b"https://pg.example.org"), (b"x-forwarded-proto", b"https"))
    assert call(front, tls)[0] == 200
    plain = api_post((b"origin", b"http://pg.example.org"), (b"x-forwarded-proto", b"https"))
    assert call(front, plain)[0] == 403
    alone, _app, _clock = door(client_ip_header="")  # no proxy: the header is anyone's to send
    assert call(alone, tls)[0] == 403


def test_a_simple_content_type_is_a_415_and_reading_is_not_checked():
    front, app, _clock = door()
    for kind in (
        b"text/plain",
        b"application/x-www-form-urlencoded",
        b"multipart/form-data",
        b"application/json-seq",
    ):
        scope = api_post()
        scope["headers"] = [h for h in scope["headers"] if h[0] != b"content-type"] + [
            (b"content-type", kind)
        ]
        assert call(front, scope)[0] == 415, kind
    assert call(front, api_post((b"content-type", b"application/json; charset=utf-8")))[0] == 200
    assert (
        call(front, http("/api/v1/versions", headers=((b"origin", b"https://evil.example"),)))[0] == 200
    )  # a GET changes nothing
    assert app.http == 2


def test_framing_is_checked_on_exempt_paths_too():
    front, app, _clock = door()
    smuggled = http(
        "/_stcore/health",
        method="POST",
        headers=((b"content-length", b"2"), (b"transfer-encoding", b"chunked")),
    )
    status, headers, _body = call(front, smuggled)
    assert status == 400 and headers["connection"] == "close" and app.http == 0
    for length in (b"\xc2\xb2", b"+2", b"1" * 5000, b" "):
        assert (
            call(
                front, http("/_stcore/upload_file/s/f", method="PUT", headers=((b"content-length", length),))
            )[0]
            == 400
        ), length
    assert call(front, http("/_stcore/health"))[0] == 200


def test_a_client_that_waits_for_100_continue_gets_its_413_without_being_asked_for_the_body():
    """Reading to drain would make uvicorn send 100 Continue: the client would then send what
    is refused."""
    front, app, _clock = door(max_body_bytes=1000)
    reads: list[int] = []

    async def receive():
        reads.append(1)
        return {"type": "http.request", "body": b"x" * 100, "more_body": False}

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    waiting = http(
        "/_stcore/upload_file/s/f",
        method="PUT",
        headers=((b"content-length", b"100000"), (b"expect", b"100-continue")),
    )
    asyncio.run(front(waiting, receive, send))
    assert sent[0]["status"] == 413 and reads == [] and app.http == 0
    sending = http("/_stcore/upload_file/s/f", method="PUT", headers=((b"content-length", b"100000"),))
    asyncio.run(front(sending, receive, send))
    assert sent[2]["status"] == 413 and reads == [1]  # drained: the client reads its 413
