"""What one page rerun costs the Streamlit process (issue 43): the page with a report on it
(the `retracing` example, Run pressed once, recorded reports replayed: no sandbox), rerun as a
press elsewhere reruns it, CPU seconds of this process per rerun. Side by side, alternating:
the figures kept per report (ui/memo.py), and built on every rerun as before.

    /opt/tf-playground/venv/bin/python bench/bench_rerun.py [--reruns 40] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]
os.environ.setdefault("PLAYGROUND_UI_EXECUTOR", "ui_support:replay")
os.environ.setdefault("PLAYGROUND_EDITOR", "plain")

from streamlit.testing.v1 import AppTest  # noqa: E402

from playground.ui import keys, memo  # noqa: E402

KEEP = memo.figure


def rebuild(build, subject, *args, **kwargs):  # type: ignore[no-untyped-def]
    return build(subject, *args, **kwargs)


def per_rerun(page: AppTest, reruns: int, kept: bool) -> float:
    memo.figure = KEEP if kept else rebuild
    page.run()  # the first with this side: builds what it keeps
    started = time.process_time()
    for _ in range(reruns):
        page.run()
    return (time.process_time() - started) / reruns


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reruns", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    page = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    page.run()
    page.button(key=keys.RUN).click().run()
    assert page.session_state[keys.RESULT].report.status == "ok"
    sides: dict[bool, list[float]] = {True: [], False: []}
    for number in range(args.rounds):
        for kept in (True, False) if number % 2 == 0 else (False, True):
            sides[kept].append(per_rerun(page, args.reruns, kept))
    built, kept = statistics.median(sides[False]), statistics.median(sides[True])
    print(f"CPU per rerun, figures built every rerun: {built * 1000:.1f} ms")
    print(f"CPU per rerun, figures kept per report:   {kept * 1000:.1f} ms ({kept / built - 1:+.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
