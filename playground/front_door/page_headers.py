"""The page's security headers: a Content-Security-Policy on every HTML answer, and nosniff and
no-referrer on every answer. An ASGI middleware in front of Streamlit (app.py's st.App).

The policy is the second line behind escaping every report string (reports/safe_text.py): if a
forged string still became markup, the visitor's browser would fetch, connect and run nothing
from any origin but the page's own. What each source is for, found by loading the page in
Chromium under the policy and reading its violations (tests/e2e/test_browser_hostile.py):

    default-src 'self'           Streamlit's bundles, fonts and media, Ace under /editor/
    script-src 'self' blob:      Streamlit loads a v2 component's code (the editor's) as a blob
               'sha256-…'        the few inline scripts the page runs, by hash: Streamlit's
                                 index.html's, and the page's own st.html scripts, whose text
                                 never changes (their data travels in attributes)
               'wasm-unsafe-eval'  Streamlit's protobuf and st.graphviz_chart's graphviz are
                                 WebAssembly
    style-src 'self' 'unsafe-inline'   Streamlit (emotion), Ace, plotly and st.html set inline styles
    img-src 'self' data:         Ace's and Streamlit's icons, the page icon, are data: URLs
    font-src 'self' data:        a font Streamlit's bundle embeds as a data: URL
    connect-src 'self'           the websocket (/_stcore/stream; CSP 3: 'self' matches ws/wss)
    frame-ancestors 'self'       no other site frames the page (clickjacking)
    base-uri 'self', form-action 'self', object-src 'none'
"""

from __future__ import annotations

import base64
import hashlib
import pathlib
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

Scope = Mapping[str, Any]
Message = dict
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# An inline <script> without a src, as Streamlit's index.html has them.
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL | re.IGNORECASE)


def script_hash(text: str) -> str:
    """The CSP source that allows one inline script, by the hash of its text as the browser
    sees it (the HTML parser turns CR LF and CR into LF)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def streamlit_inline_scripts() -> list[str]:
    """The inline scripts of the Streamlit page this server sends (read from its index.html, so
    a Streamlit upgrade brings its own)."""
    try:
        import streamlit
    except ImportError:
        return []
    index = pathlib.Path(streamlit.__file__).parent / "static" / "index.html"
    try:
        return _INLINE_SCRIPT.findall(index.read_text(encoding="utf-8"))
    except OSError:
        return []


def policy(inline_scripts: Iterable[str] = ()) -> str:
    """The page's Content-Security-Policy, allowing exactly these inline scripts."""
    hashes = sorted({script_hash(s) for s in [*streamlit_inline_scripts(), *inline_scripts]})
    return "; ".join(
        [
            "default-src 'self'",
            " ".join(["script-src 'self' blob:", *hashes, "'wasm-unsafe-eval'"]),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "frame-ancestors 'self'",
            "base-uri 'self'",
            "form-action 'self'",
            "object-src 'none'",
        ]
    )


def _is_html(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(
        name.lower() == b"content-type" and value.lower().startswith(b"text/html") for name, value in headers
    )


class PageHeaders:
    """Adds the headers to each HTTP answer that lacks them; websockets pass untouched."""

    def __init__(self, app: ASGIApp, inline_scripts: Iterable[str] = ()) -> None:
        self.app = app
        self.policy = policy(inline_scripts).encode()
        self.always = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {name.lower() for name, _value in headers}
                extra = list(self.always)
                if _is_html(headers):
                    extra.append((b"content-security-policy", self.policy))
                message = {**message, "headers": headers + [(n, v) for n, v in extra if n not in present]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
