"""What the Grappler pass views cost (issue 44): the engine's whole analysis of gallery
examples, with the passes one by one and without them (graphs.MAX_PASS_OPS = 0), side by side
in one process, alternating. Target: at most 2x a plain run's time.

    /opt/tf-playground/venv/bin/python bench/bench_passes.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from playground import gallery
from playground.engine import graphs
from playground.engine.pipeline import analyze

SLUGS = ("dead-matmuls", "retracing", "autograph-control-flow", "xla", "variable-outside")
TARGET = 2.0


def timed(slug: str, passes: bool) -> float:
    graphs.MAX_PASS_OPS = 1_000 if passes else 0
    started = time.perf_counter()
    report = analyze(gallery.BY_SLUG[slug].job())
    seconds = time.perf_counter() - started
    assert all(bool(f.graph and f.graph.passes) == passes for f in report.functions if f.graph), slug
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    for slug in SLUGS:  # warm: imports, AutoGraph, XLA's first compile
        timed(slug, True)
        timed(slug, False)
    worst = 0.0
    print(f"{'example':24} {'plain s':>8} {'passes s':>9} {'ratio':>6}  target <= {TARGET:g}x")
    for slug in SLUGS:
        plain, passes = [], []
        for number in range(rounds):
            for side in (False, True) if number % 2 == 0 else (True, False):
                (passes if side else plain).append(timed(slug, side))
        p, q = statistics.median(plain), statistics.median(passes)
        worst = max(worst, q / p)
        print(f"{slug:24} {p:8.3f} {q:9.3f} {q / p:6.2f}")
    print(f"worst ratio {worst:.2f}x  {'meets' if worst <= TARGET else 'MISSES'} <= {TARGET:g}x")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
