"""Fairness in a real browser on a real `streamlit run` and the real sandbox pool: two tabs of
one client cannot run at once, another client is not held back, and a client header counts
only when the operator configured it. Client addresses are header values from the
documentation range 203.0.113.0/24; no traffic goes there."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from browser_support import USES_CHROMIUM, launch, streamlit_server, wait_idle

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect

TIMEOUT_MS = 120_000
SLOW = """import time
import tensorflow as tf


@tf.function
def slow(x):
    time.sleep(8)   # while tracing: the run holds its worker for 8 s, longer than a slow click
    return x + 1
"""
WAITING_FOR_OWN = re.compile("Waiting for your other run")
RUNNING = re.compile(r"^Running")


def slow_url(server: str) -> str:
    from playground.ui import keys, state

    params = state.params_from_values({keys.SOURCE: SLOW, keys.FUNCTION: "slow", keys.CALLS: "float32[2]"})
    return f"{server}/?{urlencode(params)}"


@pytest.fixture
def server_with(monkeypatch):
    def start(header: str):
        if header:
            monkeypatch.setenv("PLAYGROUND_CLIENT_IP_HEADER", header)
        else:
            monkeypatch.delenv("PLAYGROUND_CLIENT_IP_HEADER", raising=False)
        monkeypatch.delenv("PLAYGROUND_UI_BROWSER_EXECUTOR", raising=False)
        return streamlit_server("ui_support:real_or_subprocess")

    return start


def open_as(browser, url: str, address: str):
    context = browser.new_context(
        viewport={"width": 1400, "height": 1400}, extra_http_headers={"X-Forwarded-For": address}
    )
    page = context.new_page()
    page.goto(url)
    wait_idle(page)  # the code editor too: a page still laying it out delays a click
    return page


def click_run(page) -> None:
    page.locator(".st-key-run button").click()


def result_of(page):
    return page.get_by_text(re.compile(r"^Run 1 · TensorFlow"))


def test_two_tabs_of_one_client_take_turns_while_another_client_runs(server_with):
    with server_with("X-Forwarded-For") as (server, _process), sync_api.sync_playwright() as p:
        browser = launch(p)
        url = slow_url(server)
        first, second = open_as(browser, url, "203.0.113.10"), open_as(browser, url, "203.0.113.10")
        other = open_as(browser, url, "203.0.113.20")
        click_run(first)
        expect(first.get_by_text(RUNNING)).to_be_visible(timeout=TIMEOUT_MS)
        click_run(second)
        expect(second.get_by_text(WAITING_FOR_OWN)).to_be_visible(timeout=TIMEOUT_MS)
        click_run(other)
        expect(result_of(other)).to_be_visible(timeout=TIMEOUT_MS)  # not held back by 203.0.113.10
        expect(result_of(first)).to_be_visible(timeout=TIMEOUT_MS)
        expect(result_of(second)).to_be_visible(timeout=TIMEOUT_MS)  # then its turn came
        browser.close()


def test_a_forged_client_header_is_ignored_when_none_is_configured(server_with):
    with server_with("") as (server, _process), sync_api.sync_playwright() as p:
        browser = launch(p)
        url = slow_url(server)
        first, forged = open_as(browser, url, "203.0.113.30"), open_as(browser, url, "203.0.113.31")
        click_run(first)
        expect(first.get_by_text(RUNNING)).to_be_visible(timeout=TIMEOUT_MS)
        click_run(forged)
        # Both are the same loopback peer: the forged address does not make a second client.
        expect(forged.get_by_text(WAITING_FOR_OWN)).to_be_visible(timeout=TIMEOUT_MS)
        expect(result_of(forged)).to_be_visible(timeout=TIMEOUT_MS)
        browser.close()


def test_a_refused_press_is_told_beside_run_and_the_report_stays(monkeypatch):
    """Run's callback refuses before any drawing (runs/fairness.py's check): the refusal shows
    beside Run, and the report of the run before stays as it was."""
    monkeypatch.setenv("PLAYGROUND_RUNS_PER_MINUTE", "1")
    with streamlit_server("ui_support:replay") as (server, _process), sync_api.sync_playwright() as p:
        browser = launch(p)
        page = open_as(browser, f"{server}/?example=retracing", "203.0.113.40")
        click_run(page)
        expect(result_of(page)).to_be_visible(timeout=TIMEOUT_MS)
        click_run(page)
        refusal = page.get_by_text(re.compile(r"^Rate limit: at most 1 runs"))
        expect(refusal).to_be_visible(timeout=10_000)
        expect(result_of(page)).to_be_visible()  # not cleared, not greyed out for a rerun
        browser.close()


def test_a_refused_press_is_told_in_the_pages_language(monkeypatch):
    """The callback runs before the page's run sets its language: it sets it itself."""
    monkeypatch.setenv("PLAYGROUND_RUNS_PER_MINUTE", "1")
    with streamlit_server("ui_support:replay") as (server, _process), sync_api.sync_playwright() as p:
        browser = launch(p)
        page = open_as(browser, f"{server}/?example=retracing&lang=zh", "203.0.113.41")
        click_run(page)
        expect(page.get_by_text(re.compile(r"^第 1 次运行 · TensorFlow"))).to_be_visible(timeout=TIMEOUT_MS)
        click_run(page)
        expect(page.get_by_text(re.compile(r"^频率限制：每位访客每分钟最多运行 1 次"))).to_be_visible(
            timeout=10_000
        )
        browser.close()
