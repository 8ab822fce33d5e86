"""Measures the sandbox: warm-pool overhead, cold CLI against a bare script, and throughput.

Run: /opt/tf-playground/venv/bin/python bench/bench_sandbox.py [--jobs 20]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from playground.contract.config import Settings  # noqa: E402
from playground.contract.job import Job  # noqa: E402
from playground.sandbox import WorkerPool  # noqa: E402

SOURCE = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x * 2 + 1\n"
BARE = SOURCE + "print(f(tf.zeros([3], tf.float32)))\n"
JOB = Job(source=SOURCE, function="f", calls=("float32[3]",))


def warm_overhead(pool: WorkerPool, jobs: int) -> tuple[float, float]:
    """Median of (submit -> report) minus the job's own time inside the worker."""
    overheads, walls = [], []
    for _ in range(jobs):
        pool.wait_ready(1)
        started = time.perf_counter()
        report = pool.submit(JOB)
        wall = time.perf_counter() - started
        assert report.status == "ok", report.message
        overheads.append(wall - report.duration_s)
        walls.append(wall)
    return statistics.median(overheads), statistics.median(walls)


def busy_cpu_s() -> float:
    """The machine's CPU seconds not idle or waiting, since boot (/proc/stat): a job's cost
    includes its zygote's forks and the kernel's teardown, which no process's own time shows."""
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def cpu_per_job(pool: WorkerPool, jobs: int) -> tuple[float, float]:
    """(the machine's CPU per job, the worker's own median), sequential `retracing` jobs on a
    warm pool: what a Run costs the sandbox side (issue 43: a Run's CPU, page and sandbox)."""
    from playground.gallery import BY_SLUG

    job = BY_SLUG["retracing"].job()
    for _ in range(3):
        pool.submit(job)
    pool.wait_ready()
    time.sleep(2)  # the refills' imports and forks settle
    before, own = busy_cpu_s(), time.process_time()
    workers = []
    for _ in range(jobs):
        report = pool.submit(job)
        assert report.status == "ok", report.message
        workers.append((report.sandbox.cpu_s or 0.0) if report.sandbox else 0.0)
    pool.wait_ready()
    busy = busy_cpu_s() - before - (time.process_time() - own)  # less this script's own
    return busy / jobs, statistics.median(workers)


def cold_cli(repeats: int) -> tuple[float, float]:
    """Best-of wall of the CLI (through the sandbox) and of a bare TF script doing the same."""
    with tempfile.TemporaryDirectory() as tmp:
        source, bare = os.path.join(tmp, "t.py"), os.path.join(tmp, "bare.py")
        with open(source, "w") as f:
            f.write(SOURCE)
        with open(bare, "w") as f:
            f.write(BARE)
        cli = [
            sys.executable,
            "-m",
            "playground",
            "analyze",
            source,
            "--function",
            "f",
            "--call",
            "float32[3]",
        ]
        return (
            min(_wall(cli) for _ in range(repeats)),
            min(_wall([sys.executable, bare]) for _ in range(repeats)),
        )


def _wall(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{done.stdout}\n{done.stderr}")
    return time.perf_counter() - started


def throughput(settings: Settings, jobs: int = 8) -> tuple[float, float, int]:
    """jobs at once to a fresh, warm pool of 2; compared with one job on a cold worker."""
    with WorkerPool(settings) as pool:
        pool.wait_ready()
        reports: list = [None] * jobs
        started = time.perf_counter()
        threads = [
            threading.Thread(target=lambda i=i: reports.__setitem__(i, pool.submit(JOB))) for i in range(jobs)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        total = time.perf_counter() - started
    from playground.sandbox import run_once

    started = time.perf_counter()
    run_once(JOB, settings)
    one = time.perf_counter() - started
    return total, one, sum(1 for r in reports if r is not None and r.status == "ok")


def machine() -> str:
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} cores (nproc), {model}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--cold-repeats", type=int, default=3)
    args = parser.parse_args()
    settings = Settings.from_env()
    settings = Settings(**{**settings.__dict__, "pool_size": 2})
    with WorkerPool(settings) as pool:
        pool.wait_ready()
        isolation = pool.isolation
        overhead, warm_wall = warm_overhead(pool, args.jobs)
        per_job, worker_cpu = cpu_per_job(pool, args.jobs)
    cli, bare = cold_cli(args.cold_repeats)
    total, one, done = throughput(settings)
    rows = [
        (
            "warm-pool overhead (median)",
            f"{overhead * 1000:.1f} ms",
            "<= 50 ms",
            f"submit->report {warm_wall * 1000:.0f} ms, {args.jobs} jobs",
        ),
        (
            "CPU per retracing job",
            f"{per_job:.3f} CPU-s",
            "(issue 43)",
            f"the machine's busy time, {args.jobs} jobs; the worker's own {worker_cpu:.3f} s",
        ),
        (
            "cold CLI / bare script",
            f"{cli / bare:.2f}x",
            "<= 1.5x",
            f"CLI {cli:.2f} s, bare {bare:.2f} s (best of {args.cold_repeats})",
        ),
        (
            "8 jobs, pool of 2",
            f"{total / one:.1f}x one job",
            "~4x",
            f"total {total:.2f} s, one cold job {one:.2f} s, {done}/8 ok",
        ),
    ]
    print_table(f"sandbox benchmark, {datetime.date.today()}, {machine()}, isolation={isolation}", rows)


def print_table(title: str, rows: list[tuple[str, str, str, str]]) -> None:
    """The figures as aligned columns: measure, result, target, details."""
    print(title)
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    print("  ".join(h.ljust(w) for h, w in zip(("measure", "result", "target", "details"), width)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, width)))


if __name__ == "__main__":
    main()
