"""The page's security headers (playground/front_door/page_headers.py), as an ASGI middleware in
front of a stand-in app: the policy on HTML answers only, nosniff and no-referrer on every answer,
an app's own header kept, websockets untouched. tests/e2e/test_browser_hostile.py loads the real page
under it in Chromium."""

from __future__ import annotations

import asyncio
import base64
import hashlib

from playground.front_door.page_headers import PageHeaders, policy, script_hash, streamlit_inline_scripts


def answer(content_type: str, extra: list | None = None):  # type: ignore[no-untyped-def]
    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "websocket":
            await send({"type": "websocket.accept"})
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", content_type.encode())] + (extra or []),
            }
        )
        await send({"type": "http.response.body", "body": b"x"})

    return app


def headers_of(app, kind: str = "http") -> list[dict]:  # type: ignore[no-untyped-def]
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request"}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(
        PageHeaders(app, inline_scripts=("console.log(1)",))({"type": kind, "path": "/"}, receive, send)
    )
    return sent


def test_the_policy_goes_on_html_and_the_other_headers_on_every_answer() -> None:
    (page_start, _body) = headers_of(answer("text/html; charset=utf-8"))
    page = dict(page_start["headers"])
    assert page[b"content-security-policy"] == policy(("console.log(1)",)).encode()
    assert page[b"x-content-type-options"] == b"nosniff" and page[b"referrer-policy"] == b"no-referrer"
    (data_start, _body) = headers_of(answer("application/json"))
    data = dict(data_start["headers"])
    assert b"content-security-policy" not in data and data[b"x-content-type-options"] == b"nosniff"


def test_an_apps_own_header_stays_and_websockets_pass() -> None:
    (start, _body) = headers_of(answer("text/html", [(b"referrer-policy", b"same-origin")]))
    assert [v for k, v in start["headers"] if k == b"referrer-policy"] == [b"same-origin"]
    assert headers_of(answer("text/html"), kind="websocket") == [{"type": "websocket.accept"}]


def test_the_policy_allows_inline_scripts_by_their_hash_only() -> None:
    text = "window.x = 1\r\n"
    digest = base64.b64encode(hashlib.sha256(b"window.x = 1\n").digest()).decode()
    assert script_hash(text) == f"'sha256-{digest}'"  # as the browser hashes it: CR LF is LF
    csp = dict(part.split(" ", 1) for part in policy((text,)).split("; "))
    scripts = csp["script-src"].split()
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts
    assert script_hash(text) in scripts
    assert streamlit_inline_scripts() and all(script_hash(s) in scripts for s in streamlit_inline_scripts())
    assert csp["default-src"] == csp["connect-src"] == "'self'" and csp["object-src"] == "'none'"
    assert csp["img-src"] == "'self' data:" and "'unsafe-inline'" in csp["style-src"]
