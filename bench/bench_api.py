"""The HTTP API's own cost: submit -> report through POST /api/v1/analyze on a real `streamlit run
app.py`, minus the job's time in the worker, beside the same figure for the warm pool called in
this process (bench_sandbox.py's "pool overhead"). The difference is what the API adds: HTTP,
the front door, JSON both ways, the fair queue and the server's executor chain.

Usage: /opt/tf-playground/venv/bin/python bench/bench_api.py [--jobs 30]
Target (issue 28): the API's median <= 30 ms.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import statistics
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT), str(ROOT / "bench")]

from bench_sandbox import JOB, warm_overhead  # noqa: E402
from bench_ui import cpu_model  # noqa: E402
from browser_support import streamlit_server  # noqa: E402

from playground.contract.config import Settings  # noqa: E402
from playground.sandbox import WorkerPool  # noqa: E402

BODY = json.dumps({"source": JOB.source, "function": JOB.function, "calls": list(JOB.calls)}).encode()
READY_S = 0.5  # between runs, as bench_sandbox waits for a warm worker before each job


def api_overhead(url: str, jobs: int) -> tuple[float, float, float]:
    """Medians of (wall - worker time), wall, and the worker time, over `jobs` API runs."""
    overheads, walls, inside = [], [], []
    for _ in range(jobs):
        time.sleep(READY_S)
        request = urllib.request.Request(
            f"{url}/api/v1/analyze", data=BODY, method="POST", headers={"Content-Type": "application/json"}
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=120) as answer:
            report = json.loads(answer.read())
        wall = time.perf_counter() - started
        assert report["status"] == "ok", report.get("message")
        overheads.append(wall - report["duration_s"])
        walls.append(wall)
        inside.append(report["duration_s"])
    return statistics.median(overheads), statistics.median(walls), statistics.median(inside)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=30)
    args = parser.parse_args()
    limits = {
        "PLAYGROUND_RUNS_PER_MINUTE": "100000",
        "PLAYGROUND_CLIENT_SECONDS_PER_MINUTE": "1e9",
        "PLAYGROUND_REQUESTS_PER_SECOND": "1000",
        "PLAYGROUND_REQUEST_BURST": "1000",
    }
    with streamlit_server(executor="bench_ui:ready_pool", env=limits) as (url, _process):
        api_overhead(url, 3)  # warm: the executor, the route
        api, api_wall, worker = api_overhead(url, args.jobs)
    with WorkerPool(Settings(pool_size=2)) as pool:
        pool.wait_ready()
        warm_overhead(pool, 3)
        direct, direct_wall = warm_overhead(pool, args.jobs)
    print(f"bench_api: {datetime.date.today()}, {cpu_model()}, {args.jobs} jobs each, medians")
    print(
        f"  through /api/v1/analyze: {api * 1000:6.1f} ms over the worker's time "
        f"(wall {api_wall * 1000:.0f} ms, worker {worker * 1000:.0f} ms)   target <= 30 ms"
    )
    print(
        f"  the warm pool, called in process: {direct * 1000:6.1f} ms over the worker's time "
        f"(wall {direct_wall * 1000:.0f} ms)"
    )
    print(f"  what the API adds: {(api - direct) * 1000:+.1f} ms")


if __name__ == "__main__":
    main()
