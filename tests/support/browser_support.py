"""Starts `streamlit run app.py` on a free port, opens Debian's Chromium on it, and waits on the
app's page the way Streamlit's own e2e tests do (tests, bench)."""

from __future__ import annotations

import collections
import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping

import pytest
import repo_paths

ROOT = repo_paths.ROOT
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
RUN_TIMEOUT_MS = 120_000  # a cold worker imports TensorFlow first
SHOTS = repo_paths.SCREENSHOTS


# A module of browser tests: skipped without Chromium; each test holds the host network still.
USES_CHROMIUM = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent"),
    pytest.mark.browser,
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(
    executor: str = "", script: str = "app.py", env: Mapping[str, str] = {}
) -> Iterator[tuple[str, subprocess.Popen]]:
    # PLAYGROUND_UI_BROWSER_EXECUTOR=ui_support:subprocess_engine bypasses the pool while it is down.
    executor = executor or os.environ.get("PLAYGROUND_UI_BROWSER_EXECUTOR", "ui_support:real_or_subprocess")
    port = free_port()
    env = dict(
        os.environ,
        PLAYGROUND_UI_EXECUTOR=executor,
        PYTHONPATH=os.pathsep.join([str(ROOT), str(repo_paths.SUPPORT), str(ROOT / "bench")]),
        **env,
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        # Streamlit prints its URL once the server listens; then the health check answers.
        for line in process.stdout:  # type: ignore[union-attr]
            if "URL" in line:
                break
        else:
            raise RuntimeError("streamlit exited before it started")
        urllib.request.urlopen(f"{url}/_stcore/health", timeout=30).read()
        wait_until_ready(url)
        # The server's log is read on, so that a chatty test never fills the pipe and stalls it.
        threading.Thread(target=collections.deque, args=(process.stdout, 200), daemon=True).start()
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=20)


def wait_until_ready(url: str, timeout_s: float = 240.0) -> None:
    """Until the server takes Runs: its sandbox has imported TensorFlow (GET /api/v1/ready is
    200; 503 while warming). A page without the API (bench/floor_app.py) answers 404: ready."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/v1/ready", timeout=30).read()
            return
        except urllib.error.HTTPError as error:
            if error.code != 503:
                return
        if time.monotonic() > deadline:
            raise TimeoutError(f"the server at {url} was not ready within {timeout_s:g} s")
        time.sleep(0.25)


# Every request a test's pages saw fail (net::ERR_..., and the URL): tests/conftest.py adds them
# to a failed browser test's report, so that a flake names its cause.
FAILED_REQUESTS: list[str] = []


def launch(playwright):  # type: ignore[no-untyped-def]
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    new_page = browser.new_page

    def watched_page(*args, **kwargs):  # type: ignore[no-untyped-def]
        page = new_page(*args, **kwargs)
        page.on("requestfailed", lambda request: FAILED_REQUESTS.append(f"{request.failure} {request.url}"))
        return page

    browser.new_page = watched_page
    return browser


EDITOR = ".st-key-source_box"  # the code editor (Ace, drawn in the page by a v2 component)


def wait_for_js(page, expression: str, timeout_ms: float) -> None:  # type: ignore[no-untyped-def]
    """Waits until `expression` is true in the page, polling from here. Playwright's own
    wait_for_function polls inside the page with eval, which the page's Content-Security-Policy
    refuses (no 'unsafe-eval'): it failed whenever the first check was still false, and each try
    was a policy violation of its own. page.evaluate goes through DevTools, which the policy
    does not govern."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true in {timeout_ms:.0f} ms: {expression}"
        page.wait_for_timeout(100)


def wait_idle(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        # The first script run has drawn the editor: Ace's text layer in its frame, or the plain box.
        page.wait_for_selector(f"{EDITOR} .ace_content, .st-key-source textarea", timeout=RUN_TIMEOUT_MS)
        page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)
    except PlaywrightTimeout as timeout:
        # Say what the page showed instead (a connection message, the editor's failure text, a
        # skeleton): a bare selector timeout left a once-in-twenty failure unexplained.
        shown = page.evaluate("() => document.body ? document.body.innerText : ''")
        raise AssertionError(f"the page never settled; it showed:\n{shown[:3000]}") from timeout


def run_and_wait(page, number: int = 1) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    # A server just started keeps Run disabled until its sandbox is warm: the click waits for it.
    page.locator(".st-key-run button").click(timeout=RUN_TIMEOUT_MS)
    # Each result is captioned "Run <n>": waiting for n tells a fresh result from the last one.
    expect(page.get_by_text(re.compile(rf"^Run {number} · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_idle(page)


def open_panel(page, key: str) -> None:  # type: ignore[no-untyped-def]
    """Opens a folded panel (ui/folded.py) by its key and waits for the rerun that draws it."""
    panel = page.locator(f".st-key-{key} details")
    if panel.get_attribute("open") is None:
        page.locator(f".st-key-{key} summary").click()
        page.wait_for_timeout(200)
        wait_idle(page)


def turn_on(page, key: str) -> None:  # type: ignore[no-untyped-def]
    """Turns a toggle on and waits for the rerun that draws what it opens. A click that lands
    while another rerun replaces the page (at a suite's start, the warm-up's) can be lost:
    the switch is read back, and clicked again while it is still off."""
    from playwright.sync_api import expect

    switch = page.locator(f".st-key-{key}").get_by_role("switch")
    for _ in range(3):
        if switch.is_checked():
            break
        page.locator(f".st-key-{key} label").click()
        page.wait_for_timeout(200)
        wait_idle(page)
    expect(switch).to_be_checked()


def open_options(page) -> None:  # type: ignore[no-untyped-def]
    """Opens the options panel, which stays folded while every setting is TensorFlow's default."""
    open_panel(page, "options_panel")


def result_caption(page, number: int = 1) -> str:  # type: ignore[no-untyped-def]
    return page.get_by_text(re.compile(rf"^Run {number} · TensorFlow")).inner_text()


def traces_value(page) -> str:  # type: ignore[no-untyped-def]
    metric = page.get_by_test_id("stMetric").filter(has_text="Traces")
    return metric.get_by_test_id("stMetricValue").inner_text().strip()


@contextlib.contextmanager
def chromium_page(width: int = 1500, height: int = 2200) -> Iterator[object]:
    """Debian's Chromium with one page of this viewport; tests save their screenshots in SHOTS."""
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = launch(p)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()


# The code editor, driven as a person drives it.
def editor(page):  # type: ignore[no-untyped-def]
    return page.locator(EDITOR)


def editor_text(page) -> str:  # type: ignore[no-untyped-def]
    return editor(page).locator(".ace_editor").evaluate("el => el.env.editor.getValue()")


def expect_editor_text(page, pattern: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 30
    while not re.search(pattern, editor_text(page)):
        assert time.monotonic() < deadline, f"editor text never matched {pattern!r}: {editor_text(page)!r}"
        time.sleep(0.2)


def close_tooltip(page) -> None:  # type: ignore[no-untyped-def]
    """Moves the mouse over the text, away from the gutter: a gutter tooltip left open closes,
    as Ace closes it for a person whose mouse crosses the text."""
    box = editor(page).locator(".ace_content").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] - 10, box["y"] + 5)
    from playwright.sync_api import expect

    expect(editor(page).locator(".ace_tooltip:visible")).to_have_count(0)


def type_code(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """Replaces the editor's text as a person would: click in it, select all, type (paste-like)."""
    close_tooltip(page)  # it would take the click
    editor(page).locator(".ace_content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(text)


def plan_box(page):  # type: ignore[no-untyped-def]
    """The call plan's text area."""
    return page.locator(".st-key-calls textarea")


def set_plan(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """Replaces the call plan as a person does, and waits for the rerun that takes it."""
    plan_box(page).fill(text)
    plan_box(page).press("Control+Enter")  # Streamlit's text area applies its value
    wait_idle(page)


def leave_editor(page) -> None:  # type: ignore[no-untyped-def]
    """Clicking outside the editor blurs it, which hands its text to the app."""
    page.get_by_text("tf.function playground", exact=True).first.click()
    page.wait_for_timeout(300)
    wait_idle(page)


# Fixtures for the browser tests (import them by name): one app server per test module, and a
# fresh Chromium page per test.
@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with streamlit_server() as (url, _process):
        yield url


@pytest.fixture
def page(server: str) -> Iterator[object]:
    with chromium_page() as page:
        yield page
