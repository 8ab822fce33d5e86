"""Where the test suite's wall-clock time goes: per module, per xdist worker, and the critical path.

    PYTEST_TIMELINE=/tmp/timeline.jsonl python -m pytest -q
    python bench/suite_timeline.py /tmp/timeline.jsonl

Each line of the file is one test's whole protocol (tests/conftest.py writes it), so a module's
time includes its module-scoped fixtures. Prints each worker's busy time and span, then the modules
by time, with the worker that ran them.
"""

from __future__ import annotations

import json
import signal
import sys
from collections import defaultdict


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path) if line.strip()]
    if not rows:
        sys.exit(f"{path}: no tests recorded")
    begin = min(r["start"] for r in rows)
    end = max(r["end"] for r in rows)
    workers: dict[str, list[dict]] = defaultdict(list)
    modules: dict[str, float] = defaultdict(float)
    module_workers: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        workers[r["worker"]].append(r)
        module = r["test"].split("::")[0]
        modules[module] += r["end"] - r["start"]
        module_workers[module].add(r["worker"])
    print(f"suite: {end - begin:.0f} s wall, {len(rows)} tests, {len(workers)} worker(s)")
    for name, tests in sorted(workers.items()):
        busy = sum(t["end"] - t["start"] for t in tests)
        last = max(t["end"] for t in tests) - begin
        print(f"  {name}: {busy:.0f} s busy, done at {last:.0f} s, {len(tests)} tests")
    print("modules by time:")
    for module, seconds in sorted(modules.items(), key=lambda kv: -kv[1]):
        print(f"  {seconds:7.1f} s  {module}  ({', '.join(sorted(module_workers[module]))})")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/timeline.jsonl")
