"""UI latency and memory: Run on the `retracing` example to results shown, and the Streamlit RSS.

Usage: /opt/tf-playground/venv/bin/python bench/bench_ui.py [--runs 3]
Targets (issue 4): results within 1.5 s with a warm pool (timing off); UI process < 300 MB RSS.
"""
from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import platform
import re
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT), str(ROOT / "bench")]

from browser_support import IDLE, launch, streamlit_server  # noqa: E402


def ready_pool() -> object:
    """Executor factory run inside Streamlit: the real pool, returned only once every worker is warm."""
    from playground.config import Settings
    from playground.executor import make_executor
    pool = make_executor(Settings.from_env())
    if not pool.wait_ready():  # type: ignore[attr-defined]
        raise RuntimeError("the pool did not warm up")
    return pool


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import expect, sync_playwright
    # One warm worker per timed run: workers are single-use, and a refill imports TF (seconds).
    os.environ["PLAYGROUND_POOL_SIZE"] = str(args.runs)
    with streamlit_server("bench_ui:ready_pool") as (url, process), sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1500, "height": 1200})
        started = time.perf_counter()
        page.goto(f"{url}/?example=retracing")
        page.wait_for_selector(".st-key-source textarea", timeout=300_000)
        page.wait_for_selector(IDLE, timeout=300_000)
        warm_s = time.perf_counter() - started
        seconds = []
        for number in range(1, args.runs + 1):
            t0 = time.perf_counter()
            page.locator(".st-key-run button").click()
            expect(page.get_by_text(re.compile(rf"^Run {number} · TensorFlow"))).to_be_visible(timeout=120_000)
            expect(page.get_by_test_id("stMetric").filter(has_text="Traces")).to_contain_text("2")
            seconds.append(time.perf_counter() - t0)
            page.wait_for_selector(IDLE)
        for tab in ("Traces", "Timing", "Graph", "Converted code"):  # RSS after every view drew
            page.get_by_role("tab", name=tab).click()
        page.wait_for_selector(IDLE)
        rss = rss_mb(process.pid)
        browser.close()
    print(f"bench_ui {datetime.date.today()} on {platform.node()} ({cpu_model()}, "
          f"{os.cpu_count()} cores), python {platform.python_version()}")
    print(f"  pool warm-up before the first view: {warm_s:.1f} s")
    print(f"  Run -> results shown (retracing, timing off), {args.runs} runs: "
          + ", ".join(f"{s:.2f}" for s in seconds)
          + f" s; median {statistics.median(seconds):.2f} s (target <= 1.5 s)")
    print(f"  Streamlit process RSS: {rss:.0f} MB (target < 300 MB; workers are separate processes)")


if __name__ == "__main__":
    main()
