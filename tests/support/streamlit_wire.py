"""A raw Streamlit client: the page's websocket (`/_stcore/stream`) spoken without a browser.

What Chromium sends (Streamlit 1.67, logged through the DevTools protocol on this app):
  - the upgrade: `Sec-WebSocket-Protocol: streamlit, <the _streamlit_xsrf cookie>` (the server
    selects the first entry; a second and third entry carry the XSRF token and a session id to
    resume), `Origin` equal to the page's own origin, and `permessage-deflate`;
  - on page open, one BackMsg: `rerun_script { query_string: "example=retracing" widget_states {}
    context_info {...} }`, no page_script_hash: a full page run of app.py;
  - on each widget change, one `rerun_script` with every widget's value (`widget_states.widgets`,
    ids like `$$ID-<hash>-<key>`) and the page_script_hash the server sent in `new_session`;
    a widget drawn inside a fragment adds that fragment's id (`fragment_id`, from the widget's
    own delta), and the server reruns only the fragment;
    a button press adds `{id: "...-run" trigger_value: true}` to that one message only (a one-shot
    trigger: the next message carries the button without it).
  - no heartbeats while a page sits idle; the server pings, the browser answers at frame level.

    async with await Session.open("http://127.0.0.1:8501", client_ip="203.0.113.9") as s:
        run = await s.rerun("example=retracing")   # PageRun(seconds=0.21, status=...)
        await s.send_raw(b"\\xff\\x00")             # not a BackMsg
        closed = await s.wait_closed(5)            # Closed(code=1002, reason='', ...)

Loopback tools only: benches and tests point it at a server they started or were given.
"""

from __future__ import annotations

import asyncio
import ssl
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

STREAM_PATH = "/_stcore/stream"
EARLY = "FINISHED_EARLY_FOR_RERUN"
SUBPROTOCOL = "streamlit"
MAX_INCOMING = 64 * 2**20  # ForwardMsgs of this app stay far below; a cap keeps a bug bounded


@dataclass(frozen=True)
class Closed:
    """How a session ended: the close code and reason the server sent (None: no close frame,
    the connection just dropped), seconds after the session opened, and who closed first."""

    code: int | None
    reason: str
    after_s: float
    by_server: bool


@dataclass(frozen=True)
class PageRun:
    """One rerun: seconds from the BackMsg sent to `script_finished`, and its status name
    (FINISHED_SUCCESSFULLY, FINISHED_EARLY_FOR_RERUN, ...)."""

    seconds: float
    status: str
    messages: int


class WireError(Exception):
    """The server did not do what a browser would have seen it do."""


class Refused(WireError):
    """The upgrade was refused: `status` is the HTTP status (403, 429, ...) or None when the
    connection failed before one came."""

    def __init__(self, status: int | None, detail: str, seconds: float) -> None:
        super().__init__(f"upgrade refused ({status}): {detail}")
        self.status, self.detail, self.seconds = status, detail, seconds


class SessionClosed(WireError):
    def __init__(self, closed: Closed) -> None:
        super().__init__(f"the server closed the session ({closed.code} {closed.reason!r})")
        self.closed = closed


# ------------------------------------------------------------------ messages
def stream_url(base: str) -> str:
    """http(s)://host:port[/prefix] -> ws(s)://host:port[/prefix]/_stcore/stream."""
    parts = urllib.parse.urlsplit(base)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}[parts.scheme]
    path = parts.path.rstrip("/")
    if not path.endswith(STREAM_PATH):
        path += STREAM_PATH
    return urllib.parse.urlunsplit((scheme, parts.netloc, path, "", ""))


def page_url(base: str) -> str:
    """The page's own address, as context_info.url carries it."""
    parts = urllib.parse.urlsplit(base)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urllib.parse.urlunsplit((scheme, parts.netloc, "/", "", ""))


def trigger(widget_id: str) -> WidgetState:
    """A button press: a one-shot trigger, sent in one rerun only."""
    return WidgetState(id=widget_id, trigger_value=True)


def text(widget_id: str, value: str) -> WidgetState:
    return WidgetState(id=widget_id, string_value=value)


def flag(widget_id: str, value: bool) -> WidgetState:
    return WidgetState(id=widget_id, bool_value=value)


def rerun_message(
    query_string: str = "",
    widgets: Iterable[WidgetState] = (),
    page_script_hash: str = "",
    url: str = "http://127.0.0.1/",
    fragment_id: str = "",
) -> bytes:
    """A `rerun_script` BackMsg as the browser builds it (empty widget_states on page open;
    fragment_id: the fragment of the widget that changed, whose run it asks for)."""
    message = BackMsg()
    state = message.rerun_script
    state.query_string = query_string
    if fragment_id:
        state.fragment_id = fragment_id
    state.widget_states.SetInParent()
    state.widget_states.widgets.extend(widgets)
    if page_script_hash:
        state.page_script_hash = page_script_hash
    info = state.context_info
    info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
    info.url, info.is_embedded, info.color_scheme = url, False, "light"
    return message.SerializeToString()


def new_element(message: ForwardMsg) -> tuple[str, Any, str] | None:
    """A ForwardMsg that draws an element: (its kind, e.g. "button", its body, the id of the
    fragment it is drawn in, "" outside any); None for any other message."""
    if message.WhichOneof("type") != "delta" or message.delta.WhichOneof("type") != "new_element":
        return None
    element = message.delta.new_element
    kind = element.WhichOneof("type")
    return kind, getattr(element, kind), message.delta.fragment_id


def unverified_tls() -> ssl.SSLContext:
    """wss:// to a proxy with a self-signed certificate."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


# ------------------------------------------------------------------ one session
class Session:
    """One websocket session. A reader task consumes every ForwardMsg as it comes (as a browser
    does, so the server's send queue never backs up) and counts `script_finished`."""

    def __init__(self, ws: ClientConnection, url: str, opened_at: float) -> None:
        self.ws, self.url, self.opened_at = ws, url, opened_at
        self.page_script_hash = ""
        self.finished: list[str] = []  # script_finished statuses, in order
        self.messages = 0
        self.closed: Closed | None = None
        self.watch: Callable[[ForwardMsg], None] | None = None  # sees every ForwardMsg (a bench's reader)
        self._closed_by_us = False
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(
        cls,
        base: str,
        *,
        client_ip: str | None = None,
        client_header: str = "X-Forwarded-For",
        origin: str | None = None,
        headers: Mapping[str, str] | None = None,
        source: str | None = None,
        subprotocols: Iterable[str] = (SUBPROTOCOL,),
        compression: bool = False,
        timeout: float = 30.0,
    ) -> Session:
        """Opens `base`'s stream. client_ip: sent as `client_header` (a header value, no
        traffic); origin: the Origin header (a raw client sends none unless asked); source: a
        local address to bind (127.0.0.x: another peer address on loopback). Raises Refused."""
        url = stream_url(base)
        extra = dict(headers or {})
        if client_ip:
            extra[client_header] = client_ip
        started = time.monotonic()
        kwargs: dict = {}
        if url.startswith("wss:"):
            kwargs["ssl"] = unverified_tls()
        if source:
            kwargs["local_addr"] = (source, 0)
        try:
            ws = await connect(
                url,
                additional_headers=extra,
                origin=origin,  # type: ignore[arg-type]
                subprotocols=list(subprotocols),  # type: ignore[arg-type]
                compression="deflate" if compression else None,
                open_timeout=timeout,
                ping_interval=None,
                close_timeout=2,
                max_size=MAX_INCOMING,
                proxy=None,
                user_agent_header=None,
                **kwargs,
            )
        except InvalidStatus as error:
            raise Refused(
                error.response.status_code, error.response.reason_phrase, time.monotonic() - started
            ) from error
        except (InvalidHandshake, OSError, EOFError, asyncio.TimeoutError) as error:
            raise Refused(None, f"{type(error).__name__}: {error}", time.monotonic() - started) from error
        return cls(ws, url, started)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.messages += 1
                if isinstance(frame, str):
                    continue
                message = ForwardMsg()
                message.ParseFromString(frame)
                if self.watch is not None:
                    self.watch(message)
                kind = message.WhichOneof("type")
                if kind == "new_session":
                    self.page_script_hash = message.new_session.page_script_hash
                elif kind == "script_finished":
                    self.finished.append(ForwardMsg.ScriptFinishedStatus.Name(message.script_finished))
                    self._changed.set()
        except ConnectionClosed:
            pass
        except Exception:  # noqa: BLE001 - a frame we cannot parse ends the session for us
            await self.ws.close()
        finally:
            self.closed = Closed(
                self.ws.close_code,
                self.ws.close_reason or "",
                time.monotonic() - self.opened_at,
                by_server=not self._closed_by_us,
            )
            self._changed.set()

    async def rerun(
        self,
        query_string: str = "",
        widgets: Iterable[WidgetState] = (),
        timeout: float = 60.0,
        page_script_hash: str | None = None,
        fragment_id: str = "",
        through_reruns: bool = False,
    ) -> PageRun:
        """Sends one rerun_script and waits for the next script_finished; with through_reruns,
        for the next that is not FINISHED_EARLY_FOR_RERUN (a callback's st.rerun ends its run
        early and starts the one it names: the press's answer is that one's)."""
        before = len(self.finished)
        payload = rerun_message(
            query_string,
            widgets,
            self.page_script_hash if page_script_hash is None else page_script_hash,
            page_url(self.url),
            fragment_id,
        )
        started = time.monotonic()
        await self.send_raw(payload)
        deadline = started + timeout

        def waiting() -> bool:
            return len(self.finished) == before or (through_reruns and self.finished[-1] == EARLY)

        while waiting():
            if self.closed is not None:
                raise SessionClosed(self.closed)
            left = deadline - time.monotonic()
            if left <= 0:
                raise asyncio.TimeoutError(f"no script_finished within {timeout:g} s")
            self._changed.clear()
            if waiting() and self.closed is None:
                try:
                    await asyncio.wait_for(self._changed.wait(), left)
                except asyncio.TimeoutError:
                    pass
        return PageRun(
            time.monotonic() - started, self.finished[-1 if through_reruns else before], self.messages
        )

    async def send_raw(self, data: bytes | str) -> None:
        """Sends one frame as is (str: a text frame). Raises SessionClosed once closed."""
        if self.closed is not None:
            raise SessionClosed(self.closed)
        try:
            await self.ws.send(data)
        except ConnectionClosed:
            await asyncio.wait({self._reader}, timeout=2)
            raise SessionClosed(
                self.closed
                or Closed(
                    self.ws.close_code, self.ws.close_reason or "", time.monotonic() - self.opened_at, True
                )
            ) from None

    async def wait_closed(self, timeout: float) -> Closed | None:
        """How the server closed the session, or None if it is still open after `timeout`."""
        await asyncio.wait({self._reader}, timeout=timeout)
        return self.closed

    @property
    def is_open(self) -> bool:
        return self.closed is None

    async def close(self) -> None:
        if self.closed is None:
            self._closed_by_us = True
        try:
            await asyncio.wait_for(self.ws.close(), 3)
        except (asyncio.TimeoutError, OSError):
            self.ws.transport.abort()
        await asyncio.wait({self._reader}, timeout=3)
        if not self._reader.done():
            self._reader.cancel()

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def page_run(
    base: str, query_string: str = "example=retracing", *, timeout: float = 60.0, **open_args: object
) -> PageRun:
    """One fresh session, one page open (a full page run), closed again."""
    session = await Session.open(base, **open_args)  # type: ignore[arg-type]
    async with session:
        return await session.rerun(query_string, timeout=timeout)


__all__ = [
    "Closed",
    "PageRun",
    "Refused",
    "Session",
    "SessionClosed",
    "WireError",
    "flag",
    "page_run",
    "rerun_message",
    "stream_url",
    "text",
    "trigger",
    "unverified_tls",
]
