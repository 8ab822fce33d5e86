"""The /api/v1 routes: Starlette handlers on the Streamlit server (app.py's st.App).

A run goes through the server's one executor (runs/shared.py), behind the same fair queue and
per-client limits as the page; the front door has already held the request to the per-client
request rate and the body cap. Every refusal is JSON: {"error": {"status", "message", "field"}}.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import json
import logging
import math
import threading
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from .. import gallery
from ..contract import i18n, job_request, share_link, versions
from ..contract.config import Settings
from ..contract.errors import (
    Cancelled,
    LimitError,
    Maintenance,
    PlaygroundError,
    SandboxError,
    WarmingUp,
)
from ..contract.i18n import _
from ..contract.job import Job, Report, to_dict
from ..contract.job_control import JobControl
from ..contract.job_request import FieldError, JobRequest
from ..contract.protocol import OnEvent
from ..front_door import identity
from ..reports import compare as comparing
from ..runs import metrics, shared
from ..runs.service import log_run
from . import body as bodies
from . import openapi, operator_metrics
from .body import Answer

PREFIX = "/api/v1"
NDJSON = "application/x-ndjson"
_LOG = logging.getLogger(__name__)


def routes() -> list[Route]:
    """The API's routes (app.py mounts them once, at start: the host names /metrics allows are
    looked up from then on, off every request's path)."""
    operator_metrics.RESOLVER.watch(operator_metrics.hosts(Settings.from_env().metrics_allow))
    return [*_served(), Route("/api/{rest:path}", elsewhere, methods=list(_METHODS))]


@functools.cache
def _served() -> tuple[Route, ...]:
    return (
        Route(f"{PREFIX}/analyze", analyze, methods=["POST"]),
        Route(f"{PREFIX}/examples", examples, methods=["GET"]),
        Route(f"{PREFIX}/examples/{{name}}", example, methods=["GET"]),
        Route(f"{PREFIX}/versions", installed_versions, methods=["GET"]),
        Route(f"{PREFIX}/ready", ready, methods=["GET"]),
        Route("/metrics", operator_metrics.metrics_page, methods=["GET"]),
        Route(f"{PREFIX}/openapi.json", document, methods=["GET"]),
    )


# Anything else under /api/ is answered in JSON (405 or 404), never by Streamlit's page.
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE")


async def elsewhere(request: Request) -> Response:
    with i18n.using(_language(request)):
        for route in _served():
            if route.path_regex.match(request.url.path):
                allowed = ", ".join(sorted(route.methods or ()))
                refusal = Refusal(
                    405, _("{path} answers {methods} only.").format(path=route.path, methods=allowed)
                )
                response = refusal.response()
                response.headers["Allow"] = allowed
                return response
        return Refusal(
            404,
            _("No route {path}; GET /api/v1/openapi.json lists them.").format(path=request.url.path[:200]),
        ).response()


class Refusal(Exception):
    """An answer other than a report: status, the sentence a person reads, and the field."""

    def __init__(
        self, status: int, message: str, field: str | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, _cut(message), _cut(field)
        self.retry_after_s = retry_after_s

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"status": self.status, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return {"error": error}

    def response(self) -> Answer:
        headers = (
            {} if self.retry_after_s is None else {"Retry-After": str(max(1, math.ceil(self.retry_after_s)))}
        )
        return Answer(self.body(), status_code=self.status, headers=headers)


SHOWN_CHARS = 2000  # of a refusal's message or field: either may quote the request


def _cut(text: str | None) -> str | None:
    return text if text is None or len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def _language(request: Request, asked: str = "") -> str:
    return i18n.choose(
        asked or request.query_params.get("lang"),
        i18n.from_accept_language(request.headers.get("accept-language")),
    )


# -- reading the request ----------------------------------------------------------------------
def client_of(request: Request, settings: Settings) -> str:
    """The client every limit counts: a known token, else the address (as the page's)."""
    known = identity.tokens(settings.api_tokens)
    token = identity.bearer(request.scope)
    if token is not None and token not in known:
        raise Refusal(
            401,
            _(
                "Unknown API token: ask the operator for one, or send no "
                "Authorization header to use your address's share."
            ),
        )
    return identity.of_api_scope(settings.client_ip_header, known, request.scope)


async def read_request(request: Request, settings: Settings) -> JobRequest:
    """The body as a JobRequest. The front door has capped its bytes at what a request can be
    (job_request.max_body_bytes); its values are counted before it is decoded."""
    raw = await request.body()
    return await asyncio.to_thread(parse_request, raw, settings)  # a megabyte: off the event loop


def parse_request(raw: bytes, settings: Settings) -> JobRequest:
    try:
        data = bodies.loads(raw, max_values=job_request.max_json_values(settings))
    except bodies.BodyError as error:
        raise Refusal(400, str(error), "") from None  # "": the body as a whole
    try:
        return job_request.from_json(data)
    except FieldError as error:
        raise Refusal(400, str(error), error.field) from None


def plan(asked: JobRequest, settings: Settings) -> tuple[Job, comparing.CompareSpec | None, Job | None]:
    """The job (and side b's, with compare), checked as the CLI checks its flags."""
    try:
        job = job_request.to_job(asked, settings, hosted=True)
    except FieldError as error:  # worded as the CLI and the page word it: a call's names the call
        raise Refusal(400, job_request.described(error, asked.calls), error.field) from None
    except PlaygroundError as error:  # the source's text (check_text)
        raise Refusal(400, str(error), "source") from None
    job = dataclasses.replace(job, language=i18n.current())
    if not asked.compare:
        return job, None, None
    try:
        spec = comparing.parse(asked.compare)
        return job, spec, comparing.plan(spec, job, settings)
    except PlaygroundError as error:
        raise Refusal(400, str(error), "compare") from None


# -- running ----------------------------------------------------------------------------------
def run(
    job: Job,
    spec: comparing.CompareSpec | None,
    job_b: Job | None,
    client: str,
    on_event: OnEvent,
    control: JobControl | None = None,
) -> dict[str, Any]:
    """Blocking: the report (or comparison) as the CLI's --json prints it; a refusal in the
    job's language."""
    with i18n.using(job.language):
        return _run(job, spec, job_b, client, on_event, control)


def _run(
    job: Job,
    spec: comparing.CompareSpec | None,
    job_b: Job | None,
    client: str,
    on_event: OnEvent,
    control: JobControl | None = None,
) -> dict[str, Any]:
    executor = shared.executor()
    started = time.monotonic()

    def submit(side: Job, name: str = "") -> Report:
        emit = on_event if not name else (lambda event: on_event({**event, "side": name}))
        try:
            report = executor.submit(side, emit, client=client, control=control)
            if control is not None and control.stop.is_set():  # its client left: it was killed
                raise Cancelled("the client closed its stream")
        except PlaygroundError as error:
            log_run("api", started, error=error, client=client)
            raise
        log_run("api", started, report, client=client)
        return report

    if spec is None or job_b is None:
        return to_dict(submit(job))
    a, b = comparing.run_sides(
        lambda side: submit(side, "a" if side is job else "b"), job, job_b, concurrent=False
    )  # one running job per client
    return {"compare": to_dict(comparing.compare(spec, job, job_b, a, b))}


def refusal_of(error: BaseException) -> Refusal:
    if isinstance(error, Refusal):
        return error
    if isinstance(error, (WarmingUp, Maintenance)):  # the server's state, not the client's limit
        return Refusal(503, str(error), retry_after_s=error.retry_after_s)
    if isinstance(error, LimitError):
        return Refusal(429, str(error), retry_after_s=error.retry_after_s or 5.0)
    if isinstance(error, SandboxError):
        return Refusal(
            503, _("No sandboxed worker can start right now; try again in a minute."), retry_after_s=30.0
        )
    if isinstance(error, PlaygroundError):
        return Refusal(400, str(error))
    _LOG.exception("api: a run failed")  # the details stay in the server's log
    return Refusal(500, _("The playground failed on this request; the server's log says why."))


def in_thread(work: Callable[[], Any]) -> asyncio.Future[Any]:
    """Runs blocking work on a thread of its own (a run may wait in the fair queue for
    minutes; the event loop's small default pool would run out)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def target() -> None:
        try:
            result, error = work(), None
        except BaseException as raised:  # noqa: BLE001 - handed to the awaiting request
            result, error = None, raised
        try:
            loop.call_soon_threadsafe(_settle, future, result, error)
        except RuntimeError:  # the loop has closed (the server stopping): no one awaits it
            pass

    threading.Thread(target=target, name="api-run", daemon=True).start()
    return future


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


# -- the routes -------------------------------------------------------------------------------
async def analyze(request: Request) -> Response:
    settings = Settings.from_env()
    with i18n.using(_language(request)):
        try:
            client = client_of(request, settings)
            asked = await read_request(request, settings)
        except Refusal as refusal:
            return refusal.response()
    with i18n.using(_language(request, asked.language)):
        try:
            job, spec, job_b = await asyncio.to_thread(plan, asked, settings)
        except Refusal as refusal:
            return refusal.response()
    url = share_link.of_request(
        public_base(request, settings), dataclasses.replace(asked, language=job.language)
    )
    language = job.language
    if NDJSON in request.headers.get("accept", ""):
        relay = _Relay(asyncio.get_running_loop())
        return _Stream(relay, _stream(relay, job, spec, job_b, client, url, language))
    try:
        result = await in_thread(lambda: run(job, spec, job_b, client, lambda event: None))
    except BaseException as error:  # noqa: BLE001 - every failure is an answer, never a trace
        with i18n.using(language):
            return refusal_of(error).response()
    return Answer({**result, "share_url": url})


def public_base(request: Request, settings: Settings) -> str:
    """The page's address as the visitor sees it. Behind the proxy this server trusts (it names
    a client IP header), the proxy terminates TLS: its X-Forwarded-Proto gives the scheme."""
    base = str(request.base_url).rstrip("/") + "/"
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    if settings.client_ip_header and forwarded in ("http", "https"):
        base = forwarded + base[base.index(":") :]
    return base


class _Stream(StreamingResponse):
    """The NDJSON answer. However it ends (the report sent, the client gone, the server
    stopping), its job's next event raises Cancelled: a client that left while its answer sat
    unread in a stalled send would otherwise leave the lines' generator to the garbage
    collector, and the job running for nobody."""

    def __init__(self, relay: _Relay, lines: AsyncGenerator[bytes, None]) -> None:
        super().__init__(lines, media_type=NDJSON, headers={"Cache-Control": "no-store"})
        self.relay, self.lines = relay, lines

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.relay.leave()
            await self.lines.aclose()


_STREAMS = [0]  # open NDJSON streams (one event loop: no lock), for /metrics
metrics.gauge("playground_api_streams", "Open API streams (NDJSON).", lambda: _STREAMS[0])


async def _stream(
    relay: _Relay,
    job: Job,
    spec: comparing.CompareSpec | None,
    job_b: Job | None,
    client: str,
    url: str,
    language: str,
) -> AsyncGenerator[bytes, None]:
    """One JSON object a line: each event as it happens, then {"event": "report", ...} (or
    "compare", or "error" with the refusal). A client that reads slowly gets the newest
    events (at most STREAM_EVENTS wait); one that leaves stops its job (Cancelled)."""
    done = in_thread(lambda: run(job, spec, job_b, client, relay.put, relay.control))
    _STREAMS[0] += 1
    try:
        while not done.done():
            woken = asyncio.ensure_future(relay.wake.wait())
            try:
                await asyncio.wait({woken, done}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                woken.cancel()  # also when the client leaves during the wait
            relay.wake.clear()
            while (event := relay.pop()) is not None:  # one at a time: what waits for a
                yield _line(event)  # stalled client is the relay's
        while (event := relay.pop()) is not None:
            yield _line(event)
    finally:
        _STREAMS[0] -= 1
        relay.leave()  # closed or cancelled: the job is stopped now, not at its next event
        done.add_done_callback(_outcome_read)
    try:
        result = done.result()
    except BaseException as error:  # noqa: BLE001
        with i18n.using(language):
            yield _line({"event": "error", **refusal_of(error).body()})
        return
    kind = "compare" if "compare" in result else "report"
    yield _line({"event": kind, kind: result.get("compare", result), "share_url": url})


def _outcome_read(done: asyncio.Future[Any]) -> None:
    """Reads the outcome of a run whose client has gone (Cancelled, most often), so that it is
    not logged as an error nobody retrieved."""
    if not done.cancelled():
        done.exception()


STREAM_EVENTS = 256  # progress events waiting for one slow client; older ones dropped


class _Relay:
    """Progress from the run's thread to the stream, bounded: a client that does not read
    costs at most STREAM_EVENTS events, the oldest dropped first; the final report is not an
    event and always comes. Once the client has gone, put() raises Cancelled."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.wake = asyncio.Event()
        self.gone = False
        self.control = JobControl()  # a job that sends no event (it sleeps) is stopped by it
        self.dropped = 0
        self._events: collections.deque[dict] = collections.deque()
        self._lock = threading.Lock()
        self._waking = False  # a wake-up is on its way to the loop

    def leave(self) -> None:
        """The client has gone, or has its answer: the job is stopped (and billed, and counted
        as cancelled) at once; a job already over is not touched."""
        self.gone = True
        self.control.stop.set()

    def put(self, event: dict) -> None:
        if self.gone:
            raise Cancelled("the client closed its stream")
        with self._lock:
            if len(self._events) >= STREAM_EVENTS:
                self._events.popleft()
                self.dropped += 1
            self._events.append(event)
            waking, self._waking = self._waking, True
        if not waking:  # one callback at a time: the loop's own queue stays short
            self.loop.call_soon_threadsafe(self._woken)

    def _woken(self) -> None:
        with self._lock:
            self._waking = False
        self.wake.set()

    def pop(self) -> dict | None:
        """The oldest event waiting, if any."""
        with self._lock:
            return self._events.popleft() if self._events else None


def _line(event: dict) -> bytes:
    return (json.dumps(event, default=str) + "\n").encode()


async def examples(request: Request) -> Response:
    with i18n.using(_language(request)):
        return Answer({"examples": [_example(e, full=False) for e in gallery.EXAMPLES]})


async def example(request: Request) -> Response:
    name = request.path_params["name"]
    with i18n.using(_language(request)):
        found = gallery.BY_SLUG.get(name)
        if found is None:
            return Refusal(
                404, _("No example {name}; GET /api/v1/examples lists them.").format(name=repr(name)), "name"
            ).response()
        return Answer(_example(found, full=True))


def _example(e: gallery.Example, full: bool) -> dict[str, Any]:
    """An example as data: what to send to /analyze to run it, and what it shows."""
    summary = {"name": e.slug, "title": _(e.title)}
    if not full:
        return summary
    request = e.request()
    return {
        **summary,
        "explanation": _text(e.explanation),
        "article_claim": _text(e.article_claim),
        "request": dict(job_request.as_mapping(request)),
    }


def _text(marked: str) -> str:
    return _(marked) if marked else ""  # gettext("") is the catalog's header


async def installed_versions(request: Request) -> Response:
    installed = versions.installed(Settings.from_env())  # never the interpreters' paths
    return Answer({"default": installed[0].version, "versions": [v.version for v in installed]})


async def ready(request: Request) -> Response:
    """Whether Runs are taken: 503 with Retry-After while the sandbox warms up (a readiness
    probe for a load balancer, and for tests that start a server)."""
    try:
        shared.executor().admit()  # the check every Run passes first
    except (WarmingUp, Maintenance) as closed:
        wait = closed.retry_after_s or 60.0
        body: dict[str, Any] = (
            {"ready": False, "maintenance": str(closed)}
            if isinstance(closed, Maintenance)
            else {"ready": False, "warming_s": round(wait)}
        )
        return Answer(body, status_code=503, headers={"Retry-After": str(max(1, math.ceil(wait)))})
    return Answer({"ready": True})


async def document(request: Request) -> Response:
    return Answer(openapi.document())
