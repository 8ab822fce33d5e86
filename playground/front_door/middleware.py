"""The front door: an ASGI middleware that holds every client to the same limits before a Run.

It sits in front of Streamlit (`st.App(middleware=...)` in app.py) and sees every HTTP request
and every websocket message. Per client (front_door/identity.py, as the fair queue counts):

    websocket /_stcore/stream   foreign Origin           -> refused at once (403), no lookup
                                over `sessions` open     -> refused (429)
                                a message over the cap   -> that session closed (1009)
                                a malformed message      -> that session closed (1002/1003)
                                over the message rate    -> held until the bucket refills; a page
                                                            run that a later one replaces is
                                                            dropped (coalesced), so the visitor's
                                                            latest state is what runs; a button
                                                            press waits its turn
    HTTP                        health, static assets    -> exempt (cheap)
                                the page                 -> answered with `preload` Link headers
                                Transfer-Encoding with Content-Length, two or a malformed
                                Content-Length           -> 400 (RFC 9112 6.3: no smuggling)
                                an API call that changes state: not JSON -> 415; from a
                                foreign page's Origin, without a token   -> 403 (CSRF)
                                a body over the cap, declared or counted as read -> 413, the
                                                            refused body drained (bounded) so
                                                            the client reads the answer
                                over the request rate    -> 429 + Retry-After
                                the page, with `sessions` tabs already open -> 429, a page that
                                                            says why
A visitor is never dropped for being fast: only messages no browser sends close a session, and
what one session has waiting is bounded.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import html
import json
import logging
import math
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..contract import i18n, job_request, specs
from ..contract.config import Settings
from ..contract.i18n import _
from . import back_messages, identity
from .back_messages import Kind, Malformed
from .buckets import ClientTable, TokenBucket

Scope = Mapping[str, Any]
Message = dict
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_LOG = logging.getLogger(__name__)
HELD_PER_SESSION = 8  # messages one session may have waiting for the bucket; then the latest
# replaces the last one waiting
STREAM = "/_stcore/stream"
API = "/api/"  # the HTTP API (playground/api/): same limits, answered in JSON
EXEMPT = ("/_stcore/health", "/_stcore/host-config", "/_stcore/script-health-check")
STATIC = ("/static/", "/component/", "/_stcore/bidi-components/", "/app/static/", "/editor/")
LOCAL_ORIGINS = {"localhost", "127.0.0.1", "0.0.0.0", "::1"}  # Streamlit's own, for local use
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
DRAIN_BYTES = 16 << 20  # of a refused body, read and dropped so the client reads the 413


@dataclass(frozen=True)
class DoorLimits:
    """The door's limits: the settings (config.py, where the defaults are) and the upload cap."""

    sessions_per_client: int
    messages_per_second: float
    message_burst: int
    max_message_bytes: int
    requests_per_second: float
    request_burst: int
    max_body_bytes: int  # the upload cap and a form's envelope
    allowed_origins: tuple[str, ...]
    client_ip_header: str
    api_tokens: Mapping[str, str] = dataclasses.field(default_factory=dict)  # secret -> name
    # An API request's body: at most what a request can be (job_request.max_body_bytes), so a
    # larger one is refused before it is read; None: max_body_bytes
    max_api_body_bytes: int | None = None

    def body_cap(self, path: str) -> int:
        """The body cap of a request to `path`: the API's own, or the upload cap."""
        if path.startswith(API) and self.max_api_body_bytes is not None:
            return min(self.max_api_body_bytes, self.max_body_bytes)
        return self.max_body_bytes

    @classmethod
    def from_settings(cls, settings: Settings, max_upload_bytes: int) -> DoorLimits:
        return cls(
            sessions_per_client=settings.sessions_per_client,
            messages_per_second=settings.messages_per_second,
            message_burst=settings.message_burst,
            max_message_bytes=settings.max_message_bytes,
            requests_per_second=settings.requests_per_second,
            request_burst=settings.request_burst,
            max_body_bytes=max_upload_bytes + 64 * 1024,
            allowed_origins=origins(settings.allowed_origins),
            client_ip_header=settings.client_ip_header,
            api_tokens=identity.tokens(settings.api_tokens),
            max_api_body_bytes=job_request.max_body_bytes(settings),
        )


def origins(text: str) -> tuple[str, ...]:
    """PLAYGROUND_ALLOWED_ORIGINS ("https://a.org, https://b.org") as scheme://host[:port]."""
    return tuple(o.strip().rstrip("/").lower() for o in text.split(",") if o.strip())


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a websocket's Origin may connect: none (not a browser), the page's own host, a
    loopback name, or one the operator allowed. Decided from the headers alone: unlike
    Streamlit's own check, it never looks up the server's external address."""
    if origin is None:
        return True
    parsed = urllib.parse.urlsplit(origin.strip())
    if not parsed.scheme or not parsed.netloc:
        return False
    if host and parsed.netloc.lower() == host.strip().lower():
        return True
    if (parsed.hostname or "") in LOCAL_ORIGINS:
        return True
    return f"{parsed.scheme}://{parsed.netloc}".lower() in allowed


DEFAULT_PORTS = {"http": 80, "https": 443}


def normal_origin(origin: str) -> str | None:
    """scheme://host:port with the default port written out, as origins compare; None for
    what names no http(s) origin ("null", a path, a bad port)."""
    try:
        parsed = urllib.parse.urlsplit(origin.strip().lower())
        port = parsed.port
    except ValueError:  # "http://[::1", a port of "x"
        return None
    if (
        parsed.scheme not in DEFAULT_PORTS
        or not parsed.hostname
        or parsed.path.strip("/")
        or parsed.query
        or parsed.username is not None
    ):
        return None
    host = f"[{parsed.hostname}]" if ":" in parsed.hostname else parsed.hostname
    return f"{parsed.scheme}://{host}:{port or DEFAULT_PORTS[parsed.scheme]}"


def page_origin(scope: Scope, trust_proxy: bool) -> str | None:
    """The origin of the page this request came to: its Host, and its scheme; behind the proxy
    this server trusts (it names a client IP header), the proxy's X-Forwarded-Proto, as the
    API's share links do."""
    host = _header(scope, b"host")
    if not host:
        return None
    scheme = str(scope.get("scheme") or "http")
    forwarded = (_header(scope, b"x-forwarded-proto") or "").split(",")[0].strip().lower()
    if trust_proxy and forwarded in DEFAULT_PORTS:
        scheme = forwarded
    return normal_origin(f"{scheme}://{host.strip()}")


def _framing(scope: Scope) -> tuple[int, str, float | None] | None:
    """RFC 9112 6.3: one way to tell where the body ends. With both Transfer-Encoding and
    Content-Length h11 lets chunked win, and the cap read the other: a body smuggled past it."""
    lengths = _headers(scope, b"content-length")
    if _header(scope, b"transfer-encoding") is not None:
        return (
            (400, _("A request may not carry both Transfer-Encoding and Content-Length."), None)
            if lengths
            else (411, _("A request body needs its length (Content-Length)."), None)
        )
    if len(lengths) > 1 or (lengths and not specs.is_count(lengths[0].strip())):
        return 400, _("The request's Content-Length is malformed or given twice."), None
    return None


def _waits_to_send(scope: Scope) -> bool:
    """A client that sent `Expect: 100-continue` sends its body only when asked: reading it to
    drain it would ask for it (uvicorn answers 100 Continue on the first read)."""
    return (_header(scope, b"expect") or "").strip().lower() == "100-continue"


def _header(scope: Scope, name: bytes) -> str | None:
    found = _headers(scope, name)
    return found[0] if found else None


def _headers(scope: Scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope.get("headers") or () if key.lower() == name]


def _language(scope: Scope) -> str:
    query = urllib.parse.parse_qs((scope.get("query_string") or b"").decode("latin-1"))
    chosen = i18n.normalise((query.get("lang") or [""])[0])
    return chosen or i18n.from_accept_language(_header(scope, b"accept-language")) or i18n.ENGLISH


class FrontDoor:
    """The ASGI middleware. One instance serves the whole server (one event loop), so its
    tables need no locks."""

    def __init__(
        self,
        app: ASGIApp,
        limits: DoorLimits,
        clock: Callable[[], float] = time.monotonic,
        preload: tuple[str, ...] = (),
    ) -> None:
        self.app, self.limits, self.clock = app, limits, clock
        # Scripts the page will ask for once it has drawn (the code editor's): named in a Link
        # header of the page's answer, the browser fetches them while it loads Streamlit.
        self.links = [(b"link", f"<{url}>; rel=preload; as=script".encode()) for url in preload]
        self.open: collections.Counter[str] = collections.Counter()
        self.messages: ClientTable[TokenBucket] = ClientTable(
            lambda: TokenBucket(limits.messages_per_second, limits.message_burst),
            lambda bucket, now: bucket.full(now),
            clock,
        )
        self.requests: ClientTable[TokenBucket] = ClientTable(
            lambda: TokenBucket(limits.requests_per_second, limits.request_burst),
            lambda bucket, now: bucket.full(now),
            clock,
        )
        self.counts: collections.Counter[str] = collections.Counter()  # what it refused, by kind

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def client(self, scope: Scope) -> str:
        if str(scope.get("path", "")).startswith(API):  # a token is its own client
            return identity.of_api_scope(self.limits.client_ip_header, self.limits.api_tokens, scope)
        return identity.of_scope(self.limits.client_ip_header, scope)

    # -- HTTP ------------------------------------------------------------------------------
    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (path.endswith(EXEMPT) or any(part in path for part in STATIC)) and _framing(
            scope
        ) is None:  # exempt from limits, never from framing
            await self.app(scope, receive, send)
            return
        client = self.client(scope)
        page = _is_page(scope)
        api = path.startswith(API)
        with i18n.using(_language(scope)):
            refusal = self._http_refusal(scope, client, page)
            if refusal is not None:
                status, text, retry_after = refusal
                body = (
                    json.dumps({"error": {"status": status, "message": text}})
                    if api
                    else _page(text)
                    if page
                    else text + "\n"
                ).encode()
        if refusal is None:
            capped = _CappedBody(
                receive, self._linked(send) if page and self.links else send, self.limits.body_cap(path), api
            )
            await self.app(scope, capped.receive, capped.send)
            return
        self.counts[f"http {status}"] += 1
        if status == 413 and not _waits_to_send(scope):
            await _drain(receive)
        kind = (
            "application/json" if api else "text/html; charset=utf-8" if page else "text/plain; charset=utf-8"
        )
        headers = [
            (b"content-type", kind.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
        ]
        if status in (400, 411, 413):  # the rest of a refused body is not read
            headers.append((b"connection", b"close"))
        if retry_after is not None:
            headers.append((b"retry-after", str(max(1, math.ceil(retry_after))).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _linked(self, send: Send) -> Send:
        async def linked(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *self.links]}
            await send(message)

        return linked

    def _http_refusal(self, scope: Scope, client: str, page: bool) -> tuple[int, str, float | None] | None:
        limits, now = self.limits, self.clock()
        refusal = _framing(scope)
        if refusal is not None:
            return refusal
        length = _header(scope, b"content-length")
        refusal = self._cross_site(scope)
        if refusal is not None:
            return refusal
        cap = limits.body_cap(str(scope.get("path", "")))
        if length is not None and int(length) > cap:
            return 413, _too_large(cap), None
        bucket = self.requests[client]
        if not bucket.take(now):
            wait = bucket.wait_s(now)
            return (
                429,
                _(
                    "Too many requests from your address: at most {rate:g} a second. Try again in {s} s."
                ).format(rate=limits.requests_per_second, s=max(1, math.ceil(wait))),
                wait,
            )
        if page and self.open[client] >= limits.sessions_per_client:
            return (
                429,
                _(
                    "Too many playground tabs are open from your address ({n}). Close one "
                    "of them, then reload this page."
                ).format(n=self.open[client]),
                5.0,
            )
        return None

    def _cross_site(self, scope: Scope) -> tuple[int, str, float | None] | None:
        """CSRF: a call that changes state (a POST to the API runs a job) must be JSON, which a
        foreign page's simple request cannot send, and come from the page's own origin, an
        allowed one, a client with no Origin (curl, the CLI), or carry a known token."""
        if not str(scope.get("path", "")).startswith(API) or scope.get("method") in SAFE_METHODS:
            return None
        kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, _("The API takes JSON: send Content-Type: application/json."), None
        origin = _header(scope, b"origin")
        if self._same_or_allowed(scope) or identity.bearer(scope) in self.limits.api_tokens:
            return None
        return (
            403,
            _(
                "Requests from another site's page are refused (Origin {origin}); ask "
                "the operator to allow it, or send an API token."
            ).format(origin=origin[:200] if origin else ""),
            None,
        )

    def _same_or_allowed(self, scope: Scope) -> bool:
        """No Origin (not a browser), or exactly the page's own (scheme, host and port), or one
        the operator allowed. Stricter than the websocket's origin_allowed: a page on another
        port of localhost is another site, and so is http:// beside https://."""
        sent = _headers(scope, b"origin")
        if not sent:
            return True
        origin = normal_origin(sent[0]) if len(sent) == 1 else None
        if origin is None:  # "null", garbage, or two
            return False
        return origin == page_origin(scope, trust_proxy=bool(self.limits.client_ip_header)) or origin in (
            normal_origin(o) for o in self.limits.allowed_origins
        )

    # -- websocket -------------------------------------------------------------------------
    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not scope.get("path", "").endswith(STREAM):
            await self.app(scope, receive, send)
            return
        client = self.client(scope)
        refusal = None
        if not origin_allowed(
            _header(scope, b"origin"), _header(scope, b"host"), self.limits.allowed_origins
        ):
            refusal = 403, "foreign origin"
        elif self.open[client] >= self.limits.sessions_per_client:
            refusal = 429, "too many sessions"
        if refusal is not None:
            self.counts[refusal[1]] += 1
            await _refuse_handshake(scope, receive, send, *refusal)
            return
        self.open[client] += 1
        session = _Session(self, client, receive, send)
        try:
            await self.app(scope, session.receive, session.send)
        finally:
            session.stop()
            self.open[client] -= 1
            if self.open[client] <= 0:
                del self.open[client]


async def _refuse_handshake(scope: Scope, receive: Receive, send: Send, status: int, why: str) -> None:
    """Answers the upgrade with an HTTP status (where the server can) instead of a session."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if "websocket.http.response" in (scope.get("extensions") or {}):
        body = (why + "\n").encode()
        await send(
            {
                "type": "websocket.http.response.start",
                "status": status,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})


class _Session:
    """One websocket's messages on their way to Streamlit, paced by its client's bucket."""

    def __init__(self, door: FrontDoor, client: str, receive: Receive, send: Send) -> None:
        self.door, self.client = door, client
        self._receive, self._send = receive, send
        self.held: collections.deque[tuple[Kind, Message]] = collections.deque()
        self._next: asyncio.Future | None = None
        self.closed = False

    async def send(self, message: Message) -> None:
        if not self.closed:  # after the door closed it, Streamlit's last words go nowhere
            await self._send(message)

    def stop(self) -> None:
        if self._next is not None:
            self._next.cancel()

    async def receive(self) -> Message:
        bucket = self.door.messages[self.client]
        while True:
            wait: float | None = None
            if self.held:
                now = self.door.clock()
                wait = bucket.wait_s(now)
                if wait == 0 and bucket.take(now):
                    return self.held.popleft()[1]
            if self._next is None:
                self._next = asyncio.ensure_future(self._receive())
            done, _pending = await asyncio.wait({self._next}, timeout=wait)
            if not done:
                continue
            message = self._next.result()
            self._next = None
            if message["type"] != "websocket.receive":
                return message  # connect, disconnect
            try:
                kind = self._check(message)
            except _Close as close:
                return await self._close(close.code, close.why)
            if not self.held and bucket.take(self.door.clock()):
                return message
            if (kind is Kind.RERUN and self.held and self.held[-1][0] is Kind.RERUN) or len(
                self.held
            ) >= HELD_PER_SESSION:
                # The later page run replaces the waiting one; with the session's queue full, a
                # press does too (the one before it is lost, the latest state still runs).
                self.held[-1] = (kind, message)
                self.door.counts["coalesced"] += 1
                continue
            self.held.append((kind, message))

    def _check(self, message: Message) -> Kind:
        data = message.get("bytes")
        if data is None:
            raise _Close(1003, "text frame")
        if len(data) > self.door.limits.max_message_bytes:
            raise _Close(1009, "message too big")
        try:
            return back_messages.classify(data)
        except Malformed as error:
            raise _Close(1002, f"malformed message: {error}") from None

    async def _close(self, code: int, why: str) -> Message:
        """Closes this one session; Streamlit sees its client leave, as if it had."""
        reason = why.split(":")[0]  # the details stay in the server's log
        self.door.counts[reason] += 1
        _LOG.warning("front door: closed a session of %s (%s)", self.client, why)
        await self._send({"type": "websocket.close", "code": code, "reason": reason})
        self.closed = True
        self.held.clear()
        return {"type": "websocket.disconnect", "code": code}


class _CappedBody:
    """The body cap, counted on the bytes the app reads, whatever the headers said: past it the
    client gets a 413 (if no answer has started) and the app a disconnect."""

    def __init__(self, receive: Receive, send: Send, cap: int, api: bool) -> None:
        self._receive, self._send, self.cap, self.api = receive, send, cap, api
        self.read, self.over, self.started = 0, False, False

    async def receive(self) -> Message:
        if self.over:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.read += len(message.get("body", b""))
            if self.read > self.cap:
                self.over = True
                if not self.started:
                    await self._refuse()
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if self.over:
            return  # the 413 went out; the app's answer is dropped
        self.started = self.started or message["type"] == "http.response.start"
        await self._send(message)

    async def _refuse(self) -> None:
        text = _too_large(self.cap)
        body = (json.dumps({"error": {"status": 413, "message": text}}) if self.api else text + "\n").encode()
        kind = b"application/json" if self.api else b"text/plain; charset=utf-8"
        await self._send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", kind),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await self._send({"type": "http.response.body", "body": body})


def _too_large(cap: int) -> str:
    return _("The request is larger than this playground accepts ({limit} MB).").format(
        limit=f"{cap / 1e6:.1f}"
    )


async def _drain(
    receive: Receive, limit: int = DRAIN_BYTES, seconds: float = 5.0, idle_s: float = 0.5
) -> None:
    """Reads (and drops) a refused body up to a bound, so the client, still sending, reads the
    answer instead of a connection reset (what nginx's lingering close does); a client that
    sends nothing more (it waits for the answer to its headers) is answered after idle_s."""
    drained, deadline = 0, time.monotonic() + seconds
    while drained < limit:
        left = min(deadline - time.monotonic(), idle_s)
        if left <= 0:
            return
        try:
            message = await asyncio.wait_for(receive(), left)
        except asyncio.TimeoutError:
            return
        if message["type"] != "http.request":
            return
        drained += len(message.get("body", b""))
        if not message.get("more_body"):
            return


class _Close(Exception):
    def __init__(self, code: int, why: str) -> None:
        super().__init__(why)
        self.code, self.why = code, why


def _is_page(scope: Scope) -> bool:
    """A browser asking for the page itself (not an API, an asset or a fetch)."""
    return scope.get("method") == "GET" and "text/html" in (_header(scope, b"accept") or "")


def _page(text: str) -> str:
    title = html.escape(_("tf.function playground"))
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body style='font-family:sans-serif;max-width:40em;margin:4em auto'>"
        f"<h1>{title}</h1><p>{html.escape(text)}</p></body></html>"
    )
