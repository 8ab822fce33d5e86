"""Real-browser tests: Debian's Chromium, driven by Playwright, on a real `streamlit run`."""
from __future__ import annotations

import os
import pathlib
import re

import pytest

from browser_support import CHROMIUM, launch, run_and_wait, streamlit_server, traces_value, wait_idle

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "screenshots"

NEW_SOURCE = """import tensorflow as tf

@tf.function
def scale(x, factor):
    if factor > 1:
        x = x * factor
    return tf.reduce_sum(x)
"""


@pytest.fixture(scope="module")
def server():
    with streamlit_server() as (url, _process):
        yield url


@pytest.fixture
def page(server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1500, "height": 2200})
        yield page
        browser.close()


def open_tab(page, label: str) -> None:
    page.get_by_role("tab", name=label).click()


def test_retracing_example_runs_and_renders_charts(page, server) -> None:
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    expect(page.locator(".st-key-source textarea")).to_have_value(re.compile(r"def process\(x\)"))
    run_and_wait(page)
    assert traces_value(page) == "2"
    open_tab(page, "Traces")
    chart = page.get_by_test_id("stPlotlyChart").first
    expect(chart.locator(".main-svg").first).to_be_visible()
    page.screenshot(path=str(SHOTS / "retracing_traces.png"), full_page=True)
    open_tab(page, "Converted code")
    expect(page.get_by_test_id("stCode").filter(has_text="ag__").first).to_be_visible()
    open_tab(page, "Graph")
    expect(page.get_by_test_id("stGraphVizChart").first).to_be_visible()
    page.screenshot(path=str(SHOTS / "retracing_graph.png"), full_page=True)
    open_tab(page, "Traces")
    page.set_viewport_size({"width": 1500, "height": 1300})
    page.screenshot(path=str(SHOTS / "readme.png"))
    if os.environ.get("PLAYGROUND_UPDATE_SCREENSHOT"):   # refresh the README's picture on demand
        page.screenshot(path=str(ROOT / "docs" / "screenshot.png"))


def test_type_new_function_and_plan(page, server) -> None:
    page.goto(server)
    wait_idle(page)
    expect(page.locator(".st-key-source textarea")).to_have_value(re.compile("def "))
    page.locator(".st-key-source textarea").fill(NEW_SOURCE)
    page.locator(".st-key-source textarea").press("Control+Enter")
    wait_idle(page)
    expect(page.locator(".st-key-function").get_by_role("combobox")).to_have_value(re.compile("^scale"))
    page.locator(".st-key-calls textarea").fill("float32[4], factor=2\nfloat32[4], factor=3\nfloat32[4], factor=3")
    page.locator(".st-key-calls textarea").press("Control+Enter")
    wait_idle(page)
    run_and_wait(page)
    assert traces_value(page) == "2"        # factor 2 -> 3 retraces, the repeat reuses
    open_tab(page, "Traces")
    expect(page.get_by_test_id("stPlotlyChart").first.locator(".main-svg").first).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    # The URL follows the state: the code is in it, so a reload restores the editor.
    expect(page).to_have_url(re.compile(r"[?&]code="))
    page.reload()
    expect(page.locator(".st-key-source textarea")).to_have_value(re.compile(r"def scale\(x, factor\)"))
    page.screenshot(path=str(SHOTS / "new_function.png"), full_page=True)


BROKEN = """import tensorflow as tf

@tf.function
def bad(x):
    y = x.numpy()
    return y
"""


def test_timing_and_problems_tabs(page, server) -> None:
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    expect(page.locator(".st-key-source textarea")).to_have_value(re.compile("def process"))
    page.locator(".st-key-timing label").click()
    wait_idle(page)
    page.locator(".st-key-sweep input").fill("x[0]=16,256,4096")
    page.locator(".st-key-sweep input").press("Enter")
    wait_idle(page)
    run_and_wait(page)
    open_tab(page, "Timing")
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts.filter(has_text="Steady-state").first.locator(".main-svg").first).to_be_visible()
    expect(charts.filter(has_text="First call").first).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Graph speedup vs eager")).to_be_visible()
    sweep = charts.filter(has_text="Time per call vs x dim 0").first
    expect(sweep.locator(".main-svg").first).to_be_visible()
    expect(sweep).to_contain_text("3 traces")   # each size retraced the one graph instance
    page.screenshot(path=str(SHOTS / "timing.png"), full_page=True)

    page.locator(".st-key-source textarea").fill(BROKEN)
    page.locator(".st-key-source textarea").press("Control+Enter")
    wait_idle(page)
    run_and_wait(page, number=2)
    open_tab(page, "Problems")
    marked = page.locator(".problem-source .problem-line")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text("x.numpy()")
    page.screenshot(path=str(SHOTS / "problems.png"), full_page=True)
