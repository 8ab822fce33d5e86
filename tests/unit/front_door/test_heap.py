"""The startup heap is set aside from full collections (front_door/heap.py), in a child so the
test process's own collector is left as it was."""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import gc
from playground.front_door import heap
kept = [[i] for i in range(50_000)]  # what startup loaded, in lists the collector tracks
frozen = heap.freeze_startup_heap()
later = [[i] for i in range(10)]
print(frozen >= 50_000, gc.get_freeze_count() == frozen, all(gc.is_tracked(x) for x in later))
"""


def test_what_startup_loaded_is_frozen_and_what_comes_later_is_not() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]
