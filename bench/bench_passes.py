"""What the pass views cost (issue 44, `--passes`): gallery examples run with the views
(Grappler's passes one by one; XLA's passes dumped, its compile timed) and without, side by
side, ABBA, the median of each. Two measures:

- engine: the analysis alone, in one fresh process with XLA's dump on (as a worker's);
- run (--sandbox): the whole Run as a visitor waits for it, through the real sandbox pool
  (fork, isolation, the report's trip and check).

Target: the views at most 2x a plain run's time.

    /opt/tf-playground/venv/bin/python bench/bench_passes.py [--rounds 5] [--sandbox]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
from collections.abc import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from playground import gallery
from playground.contract.job import Job, Report
from playground.engine import xla

SLUGS = (
    "dead-matmuls",
    "retracing",
    "autograph-control-flow",
    "xla",
    "variable-outside",
)
TARGET = 2.0


def timed(run: Callable[[Job], Report], slug: str, passes: bool) -> float:
    started = time.perf_counter()
    report = run(gallery.BY_SLUG[slug].job(passes=passes))
    seconds = time.perf_counter() - started
    shown = any(f.hlo_passes or (f.graph and f.graph.passes) for f in report.functions)
    assert report.status == "ok" and shown == passes, (slug, passes, report.status, report.message)
    return seconds


def measure(name: str, run: Callable[[Job], Report], rounds: int) -> float:
    for slug in SLUGS:  # warm: imports, AutoGraph, XLA's first compile, the pool's workers
        timed(run, slug, False)
        timed(run, slug, True)
    worst = 0.0
    print(f"{name}: {'example':24} {'plain s':>8} {'passes s':>9} {'ratio':>6}  target <= {TARGET:g}x")
    for slug in SLUGS:
        times: dict[bool, list[float]] = {False: [], True: []}
        for number in range(rounds):
            for side in (False, True) if number % 2 == 0 else (True, False):
                times[side].append(timed(run, slug, side))
        plain, views = statistics.median(times[False]), statistics.median(times[True])
        worst = max(worst, views / plain)
        print(f"{name}: {slug:24} {plain:8.3f} {views:9.3f} {views / plain:6.2f}")
    print(f"{name}: worst ratio {worst:.2f}x  {'meets' if worst <= TARGET else 'MISSES'} <= {TARGET:g}x")
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sandbox", action="store_true", help="also the whole Run, through the sandbox pool")
    args = parser.parse_args()
    xla.dump_passes()  # this process is fresh: as a worker's, before any XLA compile
    from playground.engine.pipeline import analyze

    worst = measure("engine", analyze, args.rounds)
    if args.sandbox:
        from playground.contract.config import Settings
        from playground.runs.executor import make_executor

        pool = make_executor(Settings.from_env())
        try:
            worst = measure("run", pool.submit, args.rounds)
        finally:
            pool.close()
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
