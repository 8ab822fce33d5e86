"""Measures the Ray executor: per-job overhead through Ray against the local warm pool on the same
machine, and how 20 jobs spread over a local cluster of two Ray nodes.

Run: /opt/tf-playground/venv/bin/python bench/bench_ray.py [--jobs 20]

Overhead is submit -> report minus the job's own time in its worker (as bench_sandbox.py
measures the local pool), with a warm worker waiting before each job on both sides. Local and
Ray jobs alternate, so drift in the machine's load hits both.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import datetime
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests", "support"), ROOT]

import ray  # noqa: E402
from ray_support import reload_auth, two_nodes  # noqa: E402

from bench.bench_sandbox import JOB, machine, print_table  # noqa: E402
from playground.contract.config import Settings  # noqa: E402
from playground.runs.ray.connect import connect  # noqa: E402
from playground.runs.ray.executor import RayExecutor  # noqa: E402
from playground.runs.ray.node_pool import NAMESPACE, pool_name  # noqa: E402
from playground.sandbox import WorkerPool  # noqa: E402

TARGET_MS = 100.0


def timed(submit) -> tuple[float, float, object]:
    started = time.perf_counter()
    report = submit()
    wall = time.perf_counter() - started
    assert report.status == "ok", report.message
    return wall, wall - report.duration_s, report


def overhead(settings: Settings, jobs: int) -> dict:
    """Alternating local and Ray jobs on one machine; medians in ms."""
    connect(num_cpus=settings.pool_size)
    with WorkerPool(settings) as pool, RayExecutor(settings) as ex:
        first = ex.submit(JOB)  # creates the node's pool actor
        actor = ray.get_actor(
            pool_name(ray.get_runtime_context().get_node_id(), settings), namespace=NAMESPACE
        )
        assert pool.wait_ready() and ray.get(actor.wait_ready.remote())
        local, remote, warm = [], [], []
        for _ in range(jobs):
            pool.wait_ready(1)
            local.append(timed(lambda: pool.submit(JOB)))
            ray.get(actor.wait_ready.remote(1))
            remote.append(timed(lambda: ex.submit(JOB)))
            warm.append(remote[-1][2].executor.warm)
    ray.shutdown()
    med = lambda rows, i: statistics.median(r[i] for r in rows) * 1000  # noqa: E731
    return {
        "local": med(local, 1),
        "ray": med(remote, 1),
        "local_wall": med(local, 0),
        "ray_wall": med(remote, 0),
        "warm": sum(1 for w in warm if w),
        "first_warm": first.executor.warm,
    }


def two_node_spread(settings: Settings, jobs: int, threads: int) -> dict:
    """`jobs` jobs, `threads` at a time, on a head and one more node of one slot each."""
    cluster = two_nodes(cpus_each=1)
    try:
        cluster.connect_here()
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
        ids = [n["NodeID"] for n in cluster.wait_nodes(2)]
        ex = RayExecutor(settings)
        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(threads) as workers:
            reports = list(workers.map(lambda _: ex.submit(JOB), range(jobs)))
        total = time.perf_counter() - started
        per_node = collections.Counter(
            next((i[:8] for i in ids if f"node {i[:8]}" in r.executor.node), "?") for r in reports
        )
        ray.shutdown()
    finally:
        cluster.stop()
        for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH"):
            os.environ.pop(key, None)
        reload_auth()
    return {
        "per_node": dict(per_node),
        "ok": sum(r.status == "ok" for r in reports),
        "named": sum("?" != k for k in per_node.elements()),
        "total": total,
        "warm": sum(1 for r in reports if r.executor.warm),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=4, help="two-node run: jobs at once")
    args = parser.parse_args()
    settings = Settings(**{**Settings.from_env().__dict__, "pool_size": 2})
    o = overhead(settings, args.jobs)
    s = two_node_spread(settings, args.jobs, args.threads)
    extra = o["ray"] - o["local"]
    rows = [
        (
            "overhead, local warm pool (median)",
            f"{o['local']:.1f} ms",
            "",
            f"submit->report {o['local_wall']:.0f} ms, {args.jobs} jobs",
        ),
        (
            "overhead, through Ray (median)",
            f"{o['ray']:.1f} ms",
            "",
            f"submit->report {o['ray_wall']:.0f} ms, {args.jobs} jobs, "
            f"{o['warm']}/{args.jobs} warm (first job warm: {o['first_warm']})",
        ),
        (
            "Ray minus local",
            f"{extra:+.1f} ms",
            f"<= {TARGET_MS:.0f} ms",
            "met" if extra <= TARGET_MS else "NOT met",
        ),
        (
            "two nodes, jobs per node",
            " / ".join(f"{n}: {c}" for n, c in s["per_node"].items()),
            "both serve",
            f"{s['ok']}/{args.jobs} ok, {s['named']}/{args.jobs} name their node, "
            f"{args.threads} at a time, {s['total']:.1f} s, {s['warm']} warm",
        ),
    ]
    print_table(f"ray benchmark, {datetime.date.today()}, {machine()}, ray {ray.__version__}", rows)


if __name__ == "__main__":
    main()
