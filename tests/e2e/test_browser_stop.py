"""Stop in a real browser (Chromium, a real `streamlit run` and sandbox), in every layout: the
normal page, a phone, presenter mode and a compare. A press kills the runaway job's worker
within a second (the server's own gauge of running jobs says so), the page says "Stopped after
N s", and Run is back.

The normal page runs Run inside a fragment, and Streamlit lets no fragment's widget interrupt a
running script: a Stop drawn there waited for the job's 30 s limit. These tests failed then."""

from __future__ import annotations

import re
import time
import urllib.request

import pytest
from browser_support import (  # noqa: F401 - fixtures
    IDLE,
    RUN_TIMEOUT_MS,
    SHOTS,
    USES_CHROMIUM,
    chromium_page,
    open_options,
    server,
    wait_idle,
)

from playground.contract.share_link import P_COMPARE, input_params, url

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect

# A job that never ends by itself: a Python loop while the function traces.
RUNAWAY = """import tensorflow as tf


@tf.function
def spin(x):
    while True:
        pass
    return x
"""
PHONE = {"width": 390, "height": 844}


def runaway_url(server: str, **extra: str) -> str:
    params = input_params(source=RUNAWAY, function="spin", calls="float32[3]", values={})
    return url(server, {**params, **extra})


def running_jobs(server: str) -> float:
    """The server's own count of jobs holding a sandbox slot (GET /metrics, this machine)."""
    text = urllib.request.urlopen(f"{server}/metrics", timeout=10).read().decode()
    found = re.search(r"^playground_running (\S+)$", text, re.M)
    assert found, "no playground_running gauge in /metrics"
    return float(found.group(1))


def wait_running(server: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while running_jobs(server) < 1:
        assert time.monotonic() < deadline, "the runaway job never started"
        time.sleep(0.1)


def press_stop_and_check(page, server: str, shot: str, press=None) -> None:  # type: ignore[no-untyped-def]
    """`press`: what stops the run (default: a click on Stop)."""
    wait_running(server)
    # The visible one: Streamlit draws a button twice where it has a tooltip (one hidden).
    stop = page.locator(".st-key-stop button:visible")
    expect(stop).to_be_visible(timeout=10_000)
    page.wait_for_timeout(1000)  # a second into the job: it is spinning, not starting
    pressed = time.monotonic()
    (press or stop.click)()
    while running_jobs(server) > 0:  # its worker killed and its slot freed
        assert time.monotonic() - pressed < 1.0, "the job still held its slot 1 s after Stop"
        time.sleep(0.05)
    freed = time.monotonic() - pressed
    expect(page.get_by_text(re.compile(r"Stopped after \d+(\.\d)? s"))).to_be_visible(timeout=2_000)
    expect(page.locator(".st-key-run button")).to_be_enabled(timeout=2_000)
    print(f"{shot}: slot freed {freed:.2f} s, Run back {time.monotonic() - pressed:.2f} s after Stop")
    expect(stop).to_have_count(0, timeout=2_000)
    page.screenshot(path=str(SHOTS / shot))
    page.wait_for_selector(IDLE)
    # Nothing starts again by itself (a presenter step's owed run, a compare's side b).
    page.wait_for_timeout(1500)
    assert running_jobs(server) == 0, "a job started again after Stop"


def start_run(page) -> None:  # type: ignore[no-untyped-def]
    page.locator(".st-key-run button").click(timeout=RUN_TIMEOUT_MS)


def test_stop_in_the_normal_page(server) -> None:
    with chromium_page(1400, 900) as page:
        page.goto(runaway_url(server))
        wait_idle(page)
        start_run(page)
        press_stop_and_check(page, server, "stop-normal.png")


def test_stop_on_a_phone(server) -> None:
    with chromium_page(**PHONE) as page:
        page.goto(runaway_url(server))
        wait_idle(page)
        start_run(page)
        press_stop_and_check(page, server, "stop-phone.png")


def test_stop_in_presenter_mode(server) -> None:
    with chromium_page(1400, 900) as page:
        page.goto(runaway_url(server, present="1"))
        page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)  # the editor is folded away
        start_run(page)
        press_stop_and_check(page, server, "stop-presenter.png")


def test_stop_during_a_compare_stops_both_sides(server) -> None:
    with chromium_page(1400, 900) as page:
        page.goto(runaway_url(server, **{P_COMPARE: "reduce_retracing"}))
        wait_idle(page)
        start_run(page)
        press_stop_and_check(page, server, "stop-compare.png")


def test_another_input_during_a_run_stops_it_and_says_so(server) -> None:
    """Any input outside the Run's fragment reruns the page, which stops the run at its next
    draw. The word "Stopped" was written by that old run then, and Streamlit drops a stopped
    run's writes to the session state: the page said nothing. A Stop press met the same race
    when the old run reached its draw before the press's callback ran (CI, 2026-12-07)."""
    with chromium_page(1400, 900) as page:
        page.goto(runaway_url(server))
        wait_idle(page)
        open_options(page)
        start_run(page)
        press_stop_and_check(
            page, server, "stop-by-input.png", press=lambda: page.locator(".st-key-jit_compile label").click()
        )
