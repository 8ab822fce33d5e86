"""Compare mode in a real browser: Debian's Chromium on a real `streamlit run`, both sides run in
the sandbox pool (tests/support/browser_support.py)."""

from __future__ import annotations

import re

import pytest
from browser_support import (  # noqa: F401 - fixtures
    SHOTS,
    USES_CHROMIUM,
    open_options,
    page,
    run_and_wait,
    server,
    turn_on,
    wait_idle,
)

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=20_000)


def metric_values(page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def test_compare_reduce_retracing_side_by_side(page, server) -> None:
    page.goto(f"{server}/?example=many-shapes")
    wait_idle(page)
    open_options(page)
    turn_on(page, "compare")
    kind = page.locator(".st-key-compare_kind").get_by_role("combobox")
    expect(kind).to_have_value(re.compile("^reduce_retracing"))
    wait_idle(page)
    run_and_wait(page)
    # TF 2.21: shapes [1]..[4] trace 4 times, and twice with reduce_retracing (DESIGN.md).
    expect(metric_values(page, "Traces")).to_have_text(["4", "2"])  # retried until drawn
    expect(page.get_by_text(re.compile(r"compare reduce_retracing"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"difference\(s\) between the sides"))).to_be_visible()
    chart = page.get_by_test_id("stPlotlyChart").first
    expect(chart.locator(".main-svg").first).to_be_visible()
    legend = chart.locator(".legendtext")
    expect(legend.filter(has_text="a: reduce_retracing=off")).to_have_count(1)
    expect(legend.filter(has_text="b: reduce_retracing=on")).to_have_count(1)
    assert "cmp=reduce_retracing" in page.url
    page.get_by_role("tab", name="Graph").click()
    wait_idle(page)
    expect(page.get_by_test_id("stPlotlyChart").first.locator(".legendtext")).to_have_count(2)
    page.get_by_role("tab", name="Calls").click()
    wait_idle(page)
    page.screenshot(path=str(SHOTS / "compare.png"), full_page=True)
