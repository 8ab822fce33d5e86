"""bench/server_cgroup.py: a process started into the cgroup, and everything it starts, is what
the cgroup's CPU counts; a process outside it is not. A real cgroup (root, a writable cgroup
file system), skipped where none can be made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from server_cgroup import ServerCgroup

BURN = "import time\nend = time.process_time() + {s}\nwhile time.process_time() < end:\n    pass\n"


@pytest.fixture
def group():
    made = ServerCgroup.make(name=f"tf-playground-test-{os.getpid()}")
    if made is None:
        pytest.skip("no cgroup can be made here (not root, or no writable cgroup file system)")
    yield made
    made.remove()


def test_the_cgroup_counts_its_process_and_its_children_and_nothing_else(group):
    before = group.cpu_s()
    child_burns = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {BURN.format(s=0.3)!r}])\n"
    subprocess.run(
        [sys.executable, "-c", BURN.format(s=0.3) + child_burns], preexec_fn=group.enter, check=True
    )
    inside = group.cpu_s() - before
    subprocess.run([sys.executable, "-c", BURN.format(s=0.5)], check=True)  # not in the group
    assert 0.6 <= inside, inside  # the process's 0.3 s and its child's 0.3 s
    assert group.cpu_s() - before < inside + 0.2  # the outside process's 0.5 s is not counted
