"""Fairness under abuse: one abusive client against normal clients, all real headless-Chromium
tabs on loopback, with the client identity in the configured X-Forwarded-For header.

The abuser (203.0.113.66) opens 8 tabs, each running an endless loop again and again; three
normal clients (203.0.113.1-3) each run the gallery's `retracing` example in a loop. Printed:
the normal clients' p50/p95 Run-to-result and how often any of them was refused, and what the
abuser was told. --no-fairness lifts the per-client limits (one run per client, its own queue,
runs and sandbox seconds per minute) and the background worker that a demoted job steps aside
to, so the difference shows.

The clients share this machine's two cores with the app they measure, so they run below it: the
normal clients' browser at nice 10 and the abuser's at nice 19, each started without
CAP_SYS_NICE (bench/chromium_low_priority), since Chromium run as root raises its own display
threads to nice 0 and -8, whatever it inherited.

    python bench/fairness_test.py --seconds 120
    python bench/fairness_test.py --seconds 120 --no-fairness
Addresses from the documentation range are header values only; all traffic stays on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import sys
import time
import urllib.parse

from load_test import (
    CHROMIUM,
    CHROMIUM_ARGS,
    CLIENT_CHROMIUM,
    CLIENT_HEADER,
    VIEWPORT,
    Page,
    _present,
    click_run,
    idle,
    own_server,
    percentile,
    until,
)

ABUSER, NORMAL = "203.0.113.66", ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
SPIN = """import tensorflow as tf


@tf.function
def spin(x):
    while True:
        pass
    return x
"""
UNLIMITED = {
    "PLAYGROUND_CLIENT_RUNNING": "1000",
    "PLAYGROUND_CLIENT_QUEUED": "1000",
    "PLAYGROUND_RUNS_PER_MINUTE": "100000",
    "PLAYGROUND_CLIENT_SECONDS_PER_MINUTE": "1e9",
    "PLAYGROUND_BACKGROUND_WORKERS": "0",
}  # a demoted job keeps its slot
CLIENT_NICE, ABUSER_NICE = 10, 19  # the normal clients' browser, the abuser's


def spin_url(url: str) -> str:
    from playground.ui import keys, state  # plain data and Streamlit, no TensorFlow

    params = state.params_from_values({keys.SOURCE: SPIN, keys.FUNCTION: "spin", keys.CALLS: "float32[2]"})
    return f"{url}/?{urllib.parse.urlencode(params)}"


async def one_run(tab: Page, timeout_ms: int) -> tuple[float, str]:
    """Clicks Run; returns (seconds, "" for a result or the refusal's text)."""
    elapsed, refusal = await click_run(tab, timeout_ms)
    if refusal:
        await idle(tab.page, timeout_ms)
    return elapsed, refusal


async def open_tab(browser, url: str, address: str, timeout_ms: int) -> Page:  # type: ignore[no-untyped-def]
    context = await browser.new_context(viewport=VIEWPORT, extra_http_headers={CLIENT_HEADER: address})
    tab = Page(await context.new_page())
    await tab.page.goto(url, timeout=timeout_ms)
    await until(lambda: _present(tab.page.locator(".st-key-run button")), timeout_ms, what="the Run button")
    await idle(tab.page, timeout_ms)
    return tab


async def loop(tab: Page, deadline: float, timeout_ms: int, times: list, told: collections.Counter) -> None:
    while time.monotonic() < deadline:
        elapsed, refusal = await one_run(tab, timeout_ms)
        if refusal:
            told[refusal.split(";")[0][:70]] += 1
            await asyncio.sleep(1.0)  # a person reads the message first
        else:
            times.append(elapsed)


async def drive(url: str, seconds: float, tabs: int, timeout_ms: int) -> dict:
    from playwright.async_api import async_playwright

    normal_times: list[float] = []
    normal_told: collections.Counter = collections.Counter()
    abuser_told: collections.Counter = collections.Counter()
    abuser_times: list[float] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CLIENT_CHROMIUM, args=CHROMIUM_ARGS)
        # The abuser's tabs in a browser of their own, at nice 19: hosted, they would draw on
        # the abuser's machine, so their drawing must not slow the normal clients' drawing here.
        abuser_browser = await playwright.chromium.launch(
            executable_path=CLIENT_CHROMIUM,
            args=CHROMIUM_ARGS,
            env=dict(os.environ, BENCH_EXTRA_NICE=str(ABUSER_NICE - CLIENT_NICE)),
        )
        try:
            abusers = await asyncio.gather(
                *(open_tab(abuser_browser, spin_url(url), ABUSER, timeout_ms) for _ in range(tabs))
            )
            normals = await asyncio.gather(
                *(open_tab(browser, f"{url}/?example=retracing", address, timeout_ms) for address in NORMAL)
            )
            await one_run(normals[0], timeout_ms)  # untimed: the pool is warm when the clock starts
            deadline = time.monotonic() + seconds
            await asyncio.gather(
                *(loop(t, deadline, timeout_ms, abuser_times, abuser_told) for t in abusers),
                *(loop(t, deadline, timeout_ms, normal_times, normal_told) for t in normals),
            )
        finally:
            await browser.close()
            await abuser_browser.close()
    return {
        "normal_runs": len(normal_times),
        "normal_p50_s": round(statistics.median(normal_times), 2) if normal_times else None,
        "normal_p95_s": round(percentile(normal_times, 0.95), 2) if normal_times else None,
        "normal_refused": dict(normal_told),
        "abuser_runs_ended": len(abuser_times),
        "abuser_told": dict(abuser_told),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--abuser-tabs", type=int, default=8)
    parser.add_argument(
        "--no-fairness", action="store_true", help="lift the per-client limits, to show what they change"
    )
    parser.add_argument("--run-timeout", type=float, default=180.0)
    args = parser.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        parser.error(f"{CHROMIUM} is missing (apt-get install chromium)")
    if args.no_fairness:
        os.environ.update(UNLIMITED)
    with own_server() as (url, _pid):
        os.nice(CLIENT_NICE)  # the clients yield the cores to the app they measure
        result = asyncio.run(drive(url, args.seconds, args.abuser_tabs, int(args.run_timeout * 1000)))
    result.update(
        seconds=args.seconds,
        abuser_tabs=args.abuser_tabs,
        fairness="off (--no-fairness)" if args.no_fairness else "on (defaults)",
    )
    print(json.dumps(result, indent=2))
    ok = not result["normal_refused"] and (result["normal_p95_s"] or 1e9) < 10
    return 0 if ok or args.no_fairness else 1


if __name__ == "__main__":
    sys.exit(main())
