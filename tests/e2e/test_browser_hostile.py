"""A shared link's run whose Report is hostile, in Debian's Chromium on a real `streamlit run`: the
executor seam hands the page a Report with every string forged (tests/support/hostile_report.py), its
images pointing at a second local origin that records what it is asked for. The escaping alone
(the page's Content-Security-Policy bypassed) lets nothing through; the policy itself lets the
editor, the charts, the graph and presenter mode work and blocks a third-origin image."""

from __future__ import annotations

import contextlib
import http.server
import re
import threading
from collections.abc import Iterator

import hostile_report
import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    EDITOR,
    IDLE,
    RUN_TIMEOUT_MS,
    SHOTS,
    USES_CHROMIUM,
    run_and_wait,
    streamlit_server,
    wait_for_js,
    wait_idle,
)

from playground.contract import share_link

pytestmark = [*USES_CHROMIUM, pytest.mark.slow]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=20_000)

RESULT_TABS = ("Converted code", "Traces", "Timing", "Graph", "Console", "Problems", "Export")
# Before any of the page's scripts: every CSP violation the page sees, and whether a script of
# the report's ever ran.
WATCH = """window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  {directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile}));"""


class LeakServer(http.server.ThreadingHTTPServer):
    """The second origin: answers every GET with 404 and remembers its path."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.hits.append(self.path)
                self.send_error(404)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture(scope="module")
def leak() -> Iterator[LeakServer]:
    server = LeakServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def server(leak: LeakServer) -> Iterator[str]:
    env = {hostile_report.LEAK_PORT_ENV: str(leak.server_address[1])}
    with streamlit_server("hostile_report:executor", env=env) as (url, _process):
        yield url


@contextlib.contextmanager
def browser_page(bypass_csp: bool) -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1500, "height": 2200}, bypass_csp=bypass_csp)
            page = context.new_page()
            page.add_init_script(WATCH)
            yield page
        finally:
            browser.close()


def shared_link(server: str) -> str:
    """The link a visitor opens: the retracing example's code with the marker that makes the
    executor answer with the hostile report."""
    from playground import gallery

    example = gallery.BY_SLUG["retracing"]
    source = example.source + "\n" + hostile_report.MARKER + "\n"
    return share_link.url(
        server + "/",
        share_link.input_params(
            source=source,
            function="process",
            calls="float32[3]\nfloat32[2]",
            values={"timing": True, "timing_budget_s": 1.0},
        ),
    )


def foreign(requests: list[str], server: str) -> list[str]:
    return [url for url in requests if not url.startswith((server + "/", "data:", "blob:"))]


def violations(page) -> list[dict]:  # type: ignore[no-untyped-def]
    return page.evaluate("() => window.__violations")


def run_hostile(page, server: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(shared_link(server))
    wait_idle(page)
    page.locator(".st-key-run button").click()
    # The results' caption begins "Run 1 · TensorFlow " and then the forged version, as text.
    expect(page.get_by_text(re.compile(r"^Run 1 · TensorFlow !\[x\]"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_idle(page)


def test_a_hostile_reports_strings_stay_text_in_every_tab(server: str, leak: LeakServer) -> None:
    """The first line alone, the policy bypassed: no element from the markup, no request to
    another origin, while every tab, the live captions and the editor's marks draw its text."""
    with browser_page(bypass_csp=True) as page:
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        run_hostile(page, server)
        leak_origin = f"127.0.0.1:{leak.server_address[1]}"
        # The report's text is on the page, as text (the error box names the forged message).
        expect(page.get_by_text("leak/message.png").first).to_be_visible()
        for label in RESULT_TABS:
            page.get_by_role("tab", name=label).click()
            wait_idle(page)
            expect(page.get_by_role("tab", name=label)).to_have_attribute("aria-selected", "true")
            if label == "Graph":  # the forged drawing is not drawn; its expander says so
                expect(page.get_by_text("The graph is not drawn").first).to_be_visible()
            if label in ("Traces", "Timing", "Graph"):  # charts draw, their texts escaped
                expect(page.get_by_test_id("stPlotlyChart").first.locator(".main-svg").first).to_be_visible()
            page.screenshot(
                path=str(SHOTS / f"hostile_{label.lower().replace(' ', '_')}.png"), full_page=True
            )
            for selector in (
                f"img[src*='{leak_origin}']",
                f"image[href*='{leak_origin}']",
                f"a[href*='{leak_origin}']",
                "a[href^='javascript:']",
                ".katex",
                ".stMarkdownColoredText",
                "script:not([src])[data-pwned]",
            ):
                assert page.locator(selector).count() == 0, (label, selector)
            headings = page.locator("h1, h2, h3, h4, h5, h6, li").filter(has_text="heading ")
            assert headings.count() == 0, (label, headings.all_inner_texts())
            assert page.evaluate("() => window.__pwned") is None
        # The editor's gutter shows the forged messages on hover, as text: the run's error on
        # line 3, the calls' on line 2 (pushed by the page's script after the Run).
        marks = page.locator(f"{EDITOR} .ace_gutter-cell.ace_error")
        expect(marks).to_have_count(2)
        marks.first.hover()
        tooltip = page.locator(f"{EDITOR} .ace_tooltip")
        expect(tooltip).to_contain_text("<img src=")
        assert tooltip.locator("img").count() == 0
        assert foreign(requests, server) == [] and leak.hits == []


def test_the_policy_lets_the_page_work_and_blocks_a_third_origin(server: str, leak: LeakServer) -> None:
    """Under the page's own Content-Security-Policy: a recorded run draws the editor, its gutter
    mark (the page's hashed script), a plotly chart and the graph (WebAssembly), and presenter
    mode's keys step, with no violation; the hostile run adds none; an image from another origin,
    put in the page by a script, is blocked and never fetched."""
    from playground.front_door.page_headers import policy
    from playground.ui import inline_scripts

    with browser_page(bypass_csp=False) as page:
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        response = page.goto(f"{server}/?example=retracing")
        assert response.headers["content-security-policy"] == policy(inline_scripts())
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        wait_idle(page)
        run_and_wait(page)
        expect(page.locator(f"{EDITOR} .ace_gutter-cell.ace_warning")).to_have_count(1)
        page.get_by_role("tab", name="Traces").click()
        wait_idle(page)
        expect(page.get_by_test_id("stPlotlyChart").first.locator(".main-svg").first).to_be_visible()
        page.get_by_role("tab", name="Graph").click()
        wait_idle(page)
        expect(page.get_by_test_id("stGraphVizChart").first.locator("svg").first).to_be_visible()
        assert violations(page) == []

        page.goto(f"{server}/?example=retracing&present=1")
        page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)
        # presenter_keys.js ran (allowed by its hash), and the button it clicks is drawn.
        wait_for_js(page, "window.__playgroundPresenterKeys === true", RUN_TIMEOUT_MS)
        page.wait_for_selector(".st-key-present_next button", timeout=RUN_TIMEOUT_MS)
        page.keyboard.press("ArrowRight")  # its listener clicks Next
        expect(page).not_to_have_url(re.compile(r"example=retracing"), timeout=RUN_TIMEOUT_MS)
        page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)
        assert violations(page) == []

        run_hostile(page, server)
        for label in RESULT_TABS:
            page.get_by_role("tab", name=label).click()
            wait_idle(page)
        assert violations(page) == [] and foreign(requests, server) == []

        leak_url = hostile_report.leak_url(leak.server_address[1], "injected")
        page.evaluate(
            "(url) => { const img = document.createElement('img'); img.src = url; "
            "document.body.appendChild(img); }",
            leak_url,
        )
        wait_for_js(page, "window.__violations.length > 0", 30_000)
        assert [(v["directive"], v["blocked"]) for v in violations(page)] == [("img-src", leak_url)]
        assert leak.hits == []  # Chromium names the request, and the policy stops it there


MARKUP = (  # what a report's string must never become on the page
    "img[src*='{leak}']",
    "image[href*='{leak}']",
    "a[href*='{leak}']",
    "a[href^='javascript:']",
    ".katex",
    ".stMarkdownColoredText",
    "script:not([src])[data-pwned]",
)


def test_a_hostile_saved_trace_report_opened_from_a_file_stays_text(
    server: str, leak: LeakServer, tmp_path
) -> None:
    """A file is as hostile as a worker: the saved trace-mode report, every string forged (its
    program's name and cited lines too, within their bounds), opened with the policy bypassed,
    draws its text in every tab and its cited lines, and nothing of its markup."""
    from browser_support import open_panel

    saved = tmp_path / "report.json"
    saved.write_text(hostile_report.saved(leak.server_address[1]).to_json())
    with browser_page(bypass_csp=True) as page:
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(server)
        wait_idle(page)
        open_panel(page, "open_panel")
        page.locator(".st-key-open_file input[type=file]").set_input_files(str(saved))
        expect(page.get_by_text("Saved report report.json of", exact=False)).to_be_visible()
        wait_idle(page)
        expect(page.get_by_text("ran in your own process", exact=False)).to_be_visible()
        leak_origin = f"127.0.0.1:{leak.server_address[1]}"
        for label in ("Traces", "Graph", "Problems"):
            page.get_by_role("tab", name=label).click()
            wait_idle(page)
            expect(page.get_by_role("tab", name=label)).to_have_attribute("aria-selected", "true")
            if label == "Problems":  # the cited lines, the error's line lit, as text
                expect(page.locator(".problem-source .problem-line")).to_have_count(1)
                expect(page.locator(".problem-source")).to_contain_text("trace.lines[0].text")
            for selector in MARKUP:
                assert page.locator(selector.format(leak=leak_origin)).count() == 0, (label, selector)
            headings = page.locator("h1, h2, h3, h4, h5, h6, li").filter(has_text="heading ")
            assert headings.count() == 0, (label, headings.all_inner_texts())
            assert page.evaluate("() => window.__pwned") is None
        page.screenshot(path=str(SHOTS / "hostile_saved_problems.png"), full_page=True)
        assert foreign(requests, server) == [] and leak.hits == []
