"""Compare mode's timing noise (issue 42): two runs of the same job, compared, must report no
timing difference; only differences beyond both sides' interquartile ranges count. Runs the
`retracing` example with timing on, twice per try, in this process (the engine, no sandbox),
and compares the two reports as compare mode does.

Prints per try the three modes' medians on each side and whether any timing difference was
reported; the target is 0 of N tries with one. Exits 1 if a try reports one.

    python bench/bench_compare_noise.py [--tries 10] [--budget 0.5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playground import gallery
from playground.engine.pipeline import analyze
from playground.reports import compare


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--budget", type=float, default=0.5, help="timing budget per side, seconds")
    args = parser.parse_args()
    job = gallery.BY_SLUG["retracing"].job(timing=True, timing_budget_s=args.budget)
    flagged = 0
    print(
        f"{'try':>3}  {'eager a/b (us)':>18}  {'graph a/b (us)':>18}  {'xla a/b (us)':>18}  timing differences"
    )
    for number in range(1, args.tries + 1):
        a, b = analyze(job), analyze(job)
        found = [d for d in compare.differences(a, b) if d.kind == "timing"]
        flagged += bool(found)
        ta, tb = a.functions[0].timing, b.functions[0].timing
        assert ta is not None and tb is not None
        eager = f"{ta.eager.median_s * 1e6:.1f}/{tb.eager.median_s * 1e6:.1f}"
        graph = f"{ta.graph.median_s * 1e6:.1f}/{tb.graph.median_s * 1e6:.1f}"
        xla = f"{ta.xla.median_s * 1e6:.1f}/{tb.xla.median_s * 1e6:.1f}" if ta.xla and tb.xla else "-"
        print(f"{number:>3}  {eager:>18}  {graph:>18}  {xla:>18}  {[d.detail for d in found] or 'none'}")
    print(f"tries with a timing difference: {flagged} of {args.tries} (target: 0)")
    return 1 if flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
