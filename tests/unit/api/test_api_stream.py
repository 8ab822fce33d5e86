"""The API's NDJSON stream against a client that does not read, or leaves: the real route
(playground/api/routes.py) driven at the ASGI seam, with a flooding executor in the pool's place
(runs/shared.py's PLAYGROUND_UI_EXECUTOR seam). A job's events wait for the client in a bounded
buffer, the newest kept and the report always last; a client that leaves stops its job."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from starlette.applications import Starlette

from playground import api
from playground.api.routes import STREAM_EVENTS
from playground.contract.errors import Cancelled
from playground.contract.job import Job, Report
from playground.runs import shared


class Flood:
    """`# flood N`: N timing events as fast as the caller takes them, then a report. It notes how
    its run ended, for the test to wait on (never a sleep)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.finished, self.cancelled = threading.Event(), threading.Event()
        self.underway = threading.Event()  # a thousand events sent
        self.emitted = 0

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        if job.source.startswith("# quiet"):  # no event at all: it waits, as a sleeping job does
            self.underway.set()
            stopped = control.stop.wait(60)
            (self.cancelled if stopped else self.finished).set()
            return Report("2.21.0", "CPU", "killed" if stopped else "ok", None, "", [], [])
        count = int(job.source.split()[-1])
        try:
            for index in range(count):
                on_event({"event": "timing", "function": "f", "mode": "graph", "progress": index})
                self.emitted += 1
                if self.emitted == 1000:
                    self.underway.set()
        except Cancelled:
            self.cancelled.set()
            raise
        finally:
            self.finished.set()
        return Report("2.21.0", "CPU", "ok", None, f"sent {count}", [], [])

    def close(self) -> None:
        pass


FLOOD = Flood()


def flood() -> Flood:
    return FLOOD


@pytest.fixture
def flooding(monkeypatch):
    monkeypatch.setenv(shared.EXECUTOR_ENV, f"{__name__}:flood")
    FLOOD.reset()
    return FLOOD


class Client:
    """The far end of one streamed answer: it reads only once `reading` is set, and leaves
    (http.disconnect) once `leave` is set."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.reading, self.leave = asyncio.Event(), asyncio.Event()
        self.chunks: list[bytes] = []
        self.status: int | None = None
        self._asked = False

    async def receive(self) -> dict:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            return
        await self.reading.wait()  # a client that does not read holds the send here
        if message.get("body"):
            self.chunks.append(message["body"])

    def events(self) -> list[dict]:
        return [json.loads(line) for line in b"".join(self.chunks).splitlines() if line.strip()]


def ask(client: Client):
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/analyze",
        "raw_path": b"/api/v1/analyze",
        "query_string": b"",
        "root_path": "",
        "client": ("198.51.100.60", 5000),
        "server": ("testserver", 80),
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"accept", b"application/x-ndjson"),
        ],
    }
    app = Starlette(routes=api.routes())
    return asyncio.ensure_future(app(scope, client.receive, client.send))


async def until(event: threading.Event) -> None:
    assert await asyncio.to_thread(event.wait, 60), "timed out"


def test_a_client_that_does_not_read_holds_a_bounded_buffer_and_still_gets_the_report(flooding):
    async def scenario() -> Client:
        client = Client(b'{"source": "# flood 100000"}')
        answer = ask(client)
        await until(flooding.finished)  # every event sent while the client read none
        client.reading.set()
        await asyncio.wait_for(answer, 30)
        return client

    client = asyncio.run(scenario())
    events = client.events()
    assert client.status == 200 and flooding.emitted == 100_000
    progress = [e for e in events if e["event"] == "timing"]
    # The send that stalled holds one line; the buffer, at most STREAM_EVENTS. Unbounded, all
    # 100,000 waited in the server (1.6 million grew it by 360 MB).
    assert len(progress) <= STREAM_EVENTS + 1, len(progress)
    assert progress[-1]["progress"] == 99_999  # the newest are the ones kept
    assert events[-1]["event"] == "report" and events[-1]["report"]["stdout"] == "sent 100000"
    assert events[-1]["share_url"].startswith("http://testserver/?")


@pytest.mark.parametrize("reading", [False, True], ids=["stalled", "reading"])
def test_a_client_that_leaves_stops_its_job(flooding, reading):
    """Its next event raises Cancelled in the job's thread: the sandbox's supervisor then kills
    the job, where before it ran to the end for nobody."""

    async def scenario() -> None:
        client = Client(b'{"source": "# flood 100000000"}')
        if reading:
            client.reading.set()
        answer = ask(client)
        await until(flooding.underway)
        client.leave.set()
        await until(flooding.cancelled)
        await asyncio.wait_for(answer, 30)

    asyncio.run(scenario())
    assert flooding.cancelled.is_set() and flooding.emitted < 100_000_000


def test_a_client_that_leaves_stops_a_job_that_sends_no_event_and_the_gauge_returns(flooding):
    """A job that sends nothing (it sleeps) has no next event to raise Cancelled in: the stream
    stops it through its control as its client leaves, and the open-streams gauge comes back.
    Before, it ran to its end (or its timeout) for nobody."""
    from playground.api.routes import _STREAMS

    async def scenario() -> None:
        client = Client(b'{"source": "# quiet"}')
        client.reading.set()
        answer = ask(client)
        await until(flooding.underway)
        assert _STREAMS[0] == 1
        client.leave.set()
        await until(flooding.cancelled)
        await asyncio.wait_for(answer, 30)

    asyncio.run(scenario())
    assert flooding.cancelled.is_set() and not flooding.finished.is_set()
    assert _STREAMS[0] == 0
