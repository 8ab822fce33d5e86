"""The code box: Ace, drawn in the page as a Streamlit v2 component (no frame), and the route that
serves Ace's files (vendored from ace-builds, BSD-3-Clause, see ACE_DIR/LICENSE).

Why this shape (docs/editor.md): the frame-based component it replaces loaded a second document,
React and 1.7 MB of script before Ace could draw, about 0.4 s of a first visit on this machine.
"""
from __future__ import annotations

import functools
import gzip
import pathlib
from typing import Any, Callable

import streamlit as st
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

HERE = pathlib.Path(__file__).parent
ACE_VERSION = "1.45.2"
ACE_DIR = HERE / f"ace-{ACE_VERSION}"
# Ace, its Python mode, its dark theme, and the extensions its default keys load on first use
# (Ctrl+F and Ctrl+H search, Ctrl+L go to line, F1 commands, F4 next error, Ctrl+, settings).
ACE_FILES = ("ace.js", "mode-python.js", "theme-tomorrow_night.js", "ext-searchbox.js",
             "ext-prompt.js", "ext-error_marker.js", "ext-settings_menu.js")
# The URL names Ace's version, so a browser may keep the files as long as it likes.
ASSET_PATH = f"/editor/ace-{ACE_VERSION}/"
ASSET_CACHE = "public, max-age=31536000, immutable"
NAME = "playground.code_box"
# Streamlit's look (its theme's variables, as v2 components get them): the code on the secondary
# background, rounded, the gutter on the same ground.
CSS = """
.pg-code-box.ace_editor {border-radius: var(--st-base-radius, 0.5rem);
  background: var(--st-secondary-background-color); color: var(--st-text-color);}
.pg-code-box .ace_gutter {background: transparent;
  color: color-mix(in srgb, var(--st-text-color) 60%, transparent);}
.pg-code-box .ace_gutter-active-line, .pg-code-box .ace_marker-layer .ace_active-line
  {background: rgba(128, 128, 128, 0.12);}
"""


@functools.cache   # asked on every page run; the files do not come or go while the server runs
def ready() -> bool:
    """Ace's files are here (a broken checkout or image draws the plain text area instead)."""
    return all((ACE_DIR / name).is_file() for name in ACE_FILES)


@functools.cache
def _gzipped(name: str) -> bytes:
    return gzip.compress((ACE_DIR / name).read_bytes(), compresslevel=9, mtime=0)


async def _asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ACE_FILES:
        return PlainTextResponse("Not found", status_code=404)
    headers = {"Cache-Control": ASSET_CACHE}   # Streamlit's gzip adds Vary to a plain answer
    if "gzip" in request.headers.get("accept-encoding", ""):   # and passes this one by
        return Response(_gzipped(name), media_type="text/javascript",
                        headers={**headers, "Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
    return FileResponse(ACE_DIR / name, media_type="text/javascript", headers=headers)


def routes() -> list[Route]:
    """For app.py's st.App: Ace's files, under ASSET_PATH. They are compressed here, once:
    Streamlit's gzip (level 9) would take 26 ms of the server's event loop for ace.js alone, on
    every first visit."""
    if ready():
        for name in ACE_FILES:
            _gzipped(name)
    return [Route(ASSET_PATH + "{name}", _asset, methods=["GET", "HEAD"])]


def preload() -> tuple[str, ...]:
    """The URL of the script a page with the editor loads first (for the page's Link header)."""
    return (ASSET_PATH + "ace.js",) if ready() else ()


@functools.cache
def mount() -> Callable[..., Any]:
    """The component's mounting command, registered once per process."""
    return st.components.v2.component(NAME, js=(HERE / "code_box.js").read_text(), css=CSS,
                                      isolate_styles=False)   # Ace styles the page


def code_box(text: str, generation: int, marks: list[dict], options: dict, failed: str,
             key: str, on_event: Callable[[], None], run: int = 0) -> None:
    """Draws the editor. Its text is set from `text` only when `generation` changes (code from
    outside); otherwise what the person types is theirs. `on_event` runs when Ace sends an event
    (session_state[key]["event"]: {id, type: "blur" | "submit", text}). `marks` are the gutter
    marks of Run number `run`: the editor never trades newer marks for an older run's."""
    mount()(key=key, on_event_change=on_event, height="content",
            data={"text": text, "generation": generation, "marks": marks, "run": run,
                  "options": options, "assets": ASSET_PATH, "failed": failed})
