"""UI latency and memory: the first visitor, Run on the `retracing` example to results shown,
and the Streamlit RSS.

Usage: /opt/tf-playground/venv/bin/python bench/bench_ui.py [--runs 5] [--visits 5] [--settle 10]
The floor times the same first visit to a bare Streamlit page (a text area and a button): what
this browser and machine need for any Streamlit page. Targets (issue 27), against the floor
measured in the same run: page open -> editor ready <= floor + 0.5 s; page open -> first result
(Run pressed at once) <= floor + 1.5 s; Run -> results shown, median <= 0.40 s, p90 <= 0.8 s,
and the first Run after the page load <= 1.0 s; UI process < 300 MB RSS.
A first visit varies by a few tenths of a second from one to the next on this machine, so
`--visits` pairs (a floor visit, then the app's, each on a fresh server) are timed, and the
verdicts take the median of the pairs' differences.
Every time is read off the page's own clock (bench/page_clock.py), not off Playwright's waits,
which poll every 500 ms after their first 0.27 s.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import pathlib
import platform
import statistics
import sys
import time
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT), str(ROOT / "bench")]

import page_clock  # noqa: E402
from browser_support import IDLE, launch, streamlit_server  # noqa: E402


def ready_pool() -> object:
    """Executor factory run inside Streamlit: the real pool, returned only once every worker is warm."""
    from playground.contract.config import Settings
    from playground.runs.executor import make_executor

    pool = make_executor(Settings.from_env())
    if not pool.wait_ready():  # type: ignore[attr-defined]
        raise RuntimeError("the pool did not warm up")
    return pool


def verdict(measured: float, target: float) -> str:
    return "meets <=" if measured <= target else "MISSES <="


def percentile(values: list[float], pct: int) -> float:
    """The pct-th percentile, interpolated (statistics.quantiles' inclusive method)."""
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


def listed(seconds) -> str:  # type: ignore[no-untyped-def]
    return ", ".join(f"{value:.2f}" for value in seconds)


def rss_mb(pid: int) -> float:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_model() -> str:
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


@contextlib.contextmanager
def first_page(
    settle_s: float, path: str = "", viewport: tuple[int, int] = (1500, 1200), **server: str
) -> Iterator[tuple[object, str]]:
    """A fresh server (streamlit_server's arguments), one visitor settle_s after it is healthy:
    yields that visitor's page, its clock running (page_clock), just opened at `path`."""
    from playwright.sync_api import sync_playwright

    with streamlit_server(**server) as (url, _process), sync_playwright() as p:
        time.sleep(settle_s)
        browser = launch(p)
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        page_clock.install(context)
        page = context.new_page()
        page.goto(f"{url}{path}", wait_until="commit")
        try:
            yield page, f"{url}{path}"
        finally:
            browser.close()


def since_open(page, stamp_ms: float) -> float:  # type: ignore[no-untyped-def]
    """Seconds from the page's navigation start to a stamp."""
    return (stamp_ms - page_clock.stamps(page)["origin"]) / 1000


def editor_ready(page) -> float:  # type: ignore[no-untyped-def]
    """Seconds from this page's open to Ace's text layer in the page."""
    return since_open(page, page_clock.wait_for(page, "editor"))


# Before a second visit, the first page gets this long to finish drawing (the app's, its first
# result's charts), so the second visit times a warm cache, not two pages drawing at once.
QUIET_S = 1.0


def first_visit(settle_s: float) -> tuple[float, float, float, float]:
    """The real pool, warmed by app.py's lifespan: seconds from page open to the editor ready,
    and to the first result (Run pressed as soon as the bench sees the editor), and that
    Run's own click -> result; then, for a second visit from the same browser (its cache
    warm, the first page idle), from page open to the editor ready."""
    with first_page(settle_s, "/?example=retracing", executor="ui_support:real_or_subprocess") as (page, url):
        editor_s = editor_ready(page)
        page.locator(".st-key-run button").click()
        result_s = since_open(page, page_clock.wait_for(page, "run 1"))
        clock = page_clock.stamps(page)
        run_s = (clock["run 1"] - clock["click"]) / 1000
        page.wait_for_selector(IDLE)
        time.sleep(QUIET_S)
        again = page.context.new_page()  # the same browser: its HTTP cache is warm
        again.goto(url, wait_until="commit")
        repeat_s = editor_ready(again)
    return editor_s, result_s, run_s, repeat_s


def floor_visit(settle_s: float) -> tuple[float, float]:
    """The same first visit to bench/floor_app.py: seconds from page open to its button; and
    the same for a second visit from the same browser."""
    with first_page(settle_s, script="bench/floor_app.py") as (page, url):
        first_s = since_open(page, page_clock.wait_for(page, "button"))
        page.wait_for_selector(IDLE)
        time.sleep(QUIET_S)
        again = page.context.new_page()
        again.goto(url, wait_until="commit")
        return first_s, since_open(again, page_clock.wait_for(again, "button"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--visits", type=int, default=5, help="first visits timed, each to the floor and then to the app"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=10.0,
        help="seconds between the server's first health answer and the first visit",
    )
    args = parser.parse_args()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=30_000)  # a shared, loaded machine: waits, not failures
    pairs = [(floor_visit(args.settle), first_visit(args.settle)) for _ in range(args.visits)]
    floors = [floor_s for (floor_s, _), _app in pairs]
    editors = [app[0] for _floor, app in pairs]
    results = [app[1] for _floor, app in pairs]
    floor_s, floor_repeat_s = (statistics.median(v) for v in zip(*(floor for floor, _ in pairs)))
    editor_s, first_result_s, first_run_s, repeat_s = (
        statistics.median(v) for v in zip(*(app for _, app in pairs))
    )
    over_editor = statistics.median(e - f for e, f in zip(editors, floors))
    over_result = statistics.median(r - f for r, f in zip(results, floors))
    # One warm worker per timed run: workers are single-use, and a refill imports TF (seconds).
    os.environ["PLAYGROUND_POOL_SIZE"] = str(args.runs)
    with streamlit_server("bench_ui:ready_pool") as (url, process), sync_playwright() as p:
        browser = launch(p)
        context = browser.new_context(viewport={"width": 1500, "height": 1200})
        page_clock.install(context)
        page = context.new_page()
        started = time.perf_counter()
        page.goto(f"{url}/?example=retracing")
        page_clock.wait_for(page, "editor", timeout_s=300)
        page.wait_for_selector(IDLE, timeout=300_000)
        warm_s = time.perf_counter() - started
        seconds = []
        for number in range(1, args.runs + 1):
            page.locator(".st-key-run button").click()
            shown = page_clock.wait_for(page, f"run {number}")
            seconds.append((shown - page_clock.stamps(page)["click"]) / 1000)
            expect(page.get_by_test_id("stMetric").filter(has_text="Traces")).to_contain_text("2")
            page.wait_for_selector(IDLE)
        for tab in ("Traces", "Timing", "Graph", "Converted code"):  # RSS after every view drew
            page.get_by_role("tab", name=tab).click()
        page.wait_for_selector(IDLE)
        rss = rss_mb(process.pid)
        browser.close()
    print(
        f"bench_ui {datetime.date.today()} on {platform.node()} ({cpu_model()}, "
        f"{os.cpu_count()} cores), python {platform.python_version()}"
    )
    print(
        f"  {args.visits} first visits each, {args.settle:g} s after a fresh server started; "
        f"medians, then each visit's figure"
    )
    print(
        f"  floor: a bare Streamlit page (bench/floor_app.py: a text area and a button): page "
        f"open -> button {floor_s:.2f} s ({listed(floors)})"
    )
    print(
        f"  app: page open -> editor ready {editor_s:.2f} s ({listed(editors)}); over the "
        f"floor of its pair: + {over_editor:.2f} s ({listed(e - f for e, f in zip(editors, floors))}) "
        f"({verdict(over_editor, 0.5)} floor + 0.5 s)"
    )
    print(
        f"  app: page open -> first result {first_result_s:.2f} s ({listed(results)}); over "
        f"the floor of its pair: + {over_result:.2f} s ({verdict(over_result, 1.5)} floor + 1.5 s)"
    )
    print(f"  that first Run alone (click -> result), median: {first_run_s:.2f} s")
    print(
        f"  a second visit from the same browser (its cache warm, the first page idle): page open -> editor ready "
        f"{repeat_s:.2f} s, beside the floor's {floor_repeat_s:.2f} s"
    )
    print(f"  pool warm-up before the first view: {warm_s:.1f} s")
    median, p90 = statistics.median(seconds), percentile(seconds, 90)
    print(
        f"  Run -> results shown (retracing, timing off), {args.runs} runs: "
        + ", ".join(f"{s:.2f}" for s in seconds)
        + f" s; the first after the page load {seconds[0]:.2f} s ({verdict(seconds[0], 1.0)} 1.0 s); "
        f"median {median:.2f} s ({verdict(median, 0.4)} 0.40 s), p90 {p90:.2f} s "
        f"({verdict(p90, 0.8)} 0.8 s)"
    )
    print(f"  Streamlit process RSS: {rss:.0f} MB (target < 300 MB; workers are separate processes)")


if __name__ == "__main__":
    main()
