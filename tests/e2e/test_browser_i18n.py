"""The Chinese page in a real browser (Chromium via Playwright, a real `streamlit run` and sandbox):
labels, the Run button, a pitfall and a chart title in Chinese; the toggle keeps code and results;
the browser's Accept-Language chooses the language when the URL does not."""

from __future__ import annotations

import re
import time

import pytest
from browser_support import (
    EDITOR,
    RUN_TIMEOUT_MS,
    USES_CHROMIUM,
    launch,
    server,  # noqa: F401 - fixtures
    wait_idle,
)

from playground import gallery

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=20_000)  # the shared 2-core machine draws charts slowly under load


@pytest.fixture
def browser(server):
    with sync_api.sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()


def editor_text(page) -> str:
    return page.locator(EDITOR).locator(".ace_editor").evaluate("el => el.env.editor.getValue()")


def expect_editor_text(page, pattern: str) -> None:
    deadline = time.monotonic() + 30
    while not re.search(pattern, editor_text(page)):
        assert time.monotonic() < deadline, f"editor text never matched {pattern!r}"
        time.sleep(0.2)


def test_chinese_page_runs_and_switching_keeps_code_and_results(browser, server) -> None:
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    page.goto(f"{server}/?lang=zh&example=retracing")
    wait_idle(page)
    expect(page.get_by_role("heading", name="tf.function 演练场")).to_be_visible()
    expect(page).to_have_title("tf.function 演练场")
    expect(page.get_by_text("你的 TensorFlow 代码 · 按", exact=False).first).to_be_visible()

    expect(page.get_by_text("调用计划：每行一次调用")).to_be_visible()
    expect(page.get_by_text("要调用的函数")).to_be_visible()
    run = page.locator(".st-key-run button")
    expect(run).to_have_text("运行")

    run.click()
    expect(page.get_by_text(re.compile(r"^第 1 次运行 · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_idle(page)
    page.get_by_role("tab", name="问题").click()
    expect(page.get_by_text(re.compile(r"process 中的 print\(\) 只在追踪时执行")).first).to_be_visible()
    page.get_by_role("tab", name="追踪", exact=True).click()
    chart = page.get_by_test_id("stPlotlyChart").first
    expect(chart.locator(".gtitle")).to_have_text("累计追踪次数（红色：该次调用触发了追踪）")

    # Edit the code after the run, then switch: the edit, the result and the tab all stay.
    page.locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\n# kept across the switch\n")
    page.get_by_role("heading", name="tf.function 演练场").click()  # blur: the editor hands its text over
    wait_idle(page)
    page.locator(".st-key-language").get_by_text("English", exact=True).click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="tf.function playground")).to_be_visible()
    expect(run).to_have_text("Run")
    expect(page.get_by_text(re.compile(r"^Run 1 · TensorFlow"))).to_be_visible()  # same result
    expect(page.get_by_role("tab", name="Traces", selected=True)).to_be_visible()
    expect(chart.locator(".gtitle")).to_have_text("Cumulative tracing count (red: this call traced)")
    expect_editor_text(page, "# kept across the switch")
    expect(page).to_have_url(re.compile(r"[?&]lang=en"))
    assert "def process(x)" in editor_text(page)


def test_accept_language_chooses_chinese_without_lang_in_the_url(browser, server) -> None:
    context = browser.new_context(locale="zh-CN")  # Chromium sends Accept-Language: zh-CN
    page = context.new_page()
    page.goto(server)
    wait_idle(page)
    expect(page.get_by_role("heading", name="tf.function 演练场")).to_be_visible()
    expect(page.locator(".st-key-run button")).to_have_text("运行")
    title = gallery.BY_SLUG["retracing"].title
    expect(page.get_by_text(title)).to_have_count(0)  # the example's title is Chinese too
    context.close()
