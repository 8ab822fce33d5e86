"""Where a Run after a page load spends its time (issue 27): click -> the server's first
websocket message -> its last message before the result caption is drawn -> the caption drawn,
for Runs 1 to 4 on one page, with the bytes the server sent. "shown" is the page's own clock
(bench/page_clock.py); the message times are the bench's, from just before the click.

Usage: /opt/tf-playground/venv/bin/python bench/first_run_probe.py [SETTLE_S]
SETTLE_S: seconds to wait after the page is idle before the first Run (default 0).
"""

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests", "support"), ROOT, os.path.join(ROOT, "bench")]
import page_clock  # noqa: E402
from browser_support import IDLE, launch, streamlit_server  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

os.environ["PLAYGROUND_POOL_SIZE"] = "5"
with streamlit_server("bench_ui:ready_pool") as (url, process), sync_playwright() as p:
    browser = launch(p)
    context = browser.new_context(viewport={"width": 1500, "height": 1200})
    page_clock.install(context)
    page = context.new_page()
    frames = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda payload: frames.append((time.perf_counter(), len(payload)))),
    )
    page.goto(f"{url}/?example=retracing")
    page_clock.wait_for(page, "editor", timeout_s=300)
    page.wait_for_selector(IDLE, timeout=300_000)
    time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 0.0)
    for n in range(1, 5):
        frames.clear()
        t0 = time.perf_counter()
        page.locator(".st-key-run button").click()
        stamp = page_clock.wait_for(page, f"run {n}")
        shown = (stamp - page_clock.stamps(page)["click"]) / 1000
        page.wait_for_selector(IDLE)
        time.sleep(1.0)
        got = [(t - t0, size) for t, size in frames]
        before = [g for g in got if g[0] <= shown]
        print(
            f"run {n}: shown {shown:.3f} s; messages {len(got)} ({sum(s for _, s in got)} bytes), "
            f"first at {got[0][0]:.3f} s, last before shown {before[-1][0]:.3f} s, last {got[-1][0]:.3f} s"
        )
    browser.close()
