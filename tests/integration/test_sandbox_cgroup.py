"""A job's memory is the job's (issue 55): many processes, or memfds, hold at most the job's
memory limit in total, measured by the host from the job's own cgroup, and a job over it is
stopped with "Memory limit", alone. Needs a cgroup the server can make (root and a writable
cgroup file system, as on this project's machines); elsewhere the rlimits alone hold, and
docs/hosting.md says what that leaves open."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from sandbox_support import (
    SETTINGS,
    pool,  # noqa: F401 - pool is a fixture
    script,
    timed,
)

from playground.sandbox.job_cgroup import JobCgroups

LIMIT_MB = SETTINGS.memory_mb


def need_cgroups(pool) -> JobCgroups:  # type: ignore[no-untyped-def]
    if pool.config.cgroups is None:
        pytest.skip("no cgroup per job here: " + "; ".join(pool.config.notes))
    return pool.config.cgroups


# Each child holds its part and stays; the parent says "all held" only if every child is
# still alive after a while (the kernel may kill a child, not the parent, at the limit).
HOLD_IN_CHILDREN = """
import os, time
def hold():
{hold}
children = []
for _ in range({children}):
    pid = os.fork()
    if pid == 0:
        hold()
        time.sleep(30)
        os._exit(0)
    children.append(pid)
time.sleep(6)
alive = [pid for pid in children if os.waitpid(pid, os.WNOHANG) == (0, 0)]
print('all held' if len(alive) == len(children) else f'{{len(alive)}} of {{len(children)}} alive')
"""
# 24 processes of 256 MiB each: 6 GiB, each one far below the per-process RLIMIT_AS.
MANY_PROCESSES = HOLD_IN_CHILDREN.format(
    children=24,
    hold="    block = bytearray(256 << 20)\n"
    "    for i in range(0, len(block), 4096):\n        block[i] = 1\n    hold.block = block",
)
# 2 processes of 200 memfds of 15 MiB each: 6 GiB that no mapping holds, so RLIMIT_AS never
# sees it, and each memfd stays below RLIMIT_FSIZE (16 MiB here).
MEMFDS = HOLD_IN_CHILDREN.format(
    children=2,
    hold="    chunk = b'x' * (15 << 20)\n    hold.fds = []\n"
    "    for n in range(200):\n        fd = os.memfd_create('hold')\n"
    "        os.write(fd, chunk)\n        hold.fds.append(fd)",
)


@pytest.mark.parametrize("source", [MANY_PROCESSES, MEMFDS], ids=["many processes", "memfds"])
def test_a_job_holds_at_most_its_memory_limit_in_total(pool, source) -> None:
    jobs = need_cgroups(pool)
    report, wall = timed(pool, script(source, timeout_s=20))
    assert "all held" not in report.stdout, "the job held more than its limit"
    assert report.status == "memory", report.message
    assert report.message.startswith("Memory limit"), report.message
    peak = report.sandbox.memory_peak_mb if report.sandbox else None
    assert peak is not None and peak <= LIMIT_MB, f"peak {peak} MiB against a limit of {LIMIT_MB}"
    print(f"{jobs.description}: stopped after {wall:.1f} s at a peak of {peak:.0f} MiB (limit {LIMIT_MB})")
    after, _ = timed(pool, script("print('next job')\n"))
    assert (after.status, after.stdout.strip()) == ("ok", "next job"), after.message


def test_an_ordinary_job_reports_its_peak_and_leaves_no_group(pool) -> None:
    jobs = need_cgroups(pool)
    report, _ = timed(pool, script("block = bytearray(64 << 20)\nprint('ok')\n"))
    assert report.status == "ok", report.message
    peak = report.sandbox.memory_peak_mb if report.sandbox else None
    assert peak is not None and 64 <= peak <= LIMIT_MB
    deadline = time.monotonic() + 10  # the worker is released off the job's thread
    ours = f"job-{os.getpid()}-"  # other processes' pools (another test worker) have their own
    left: list[str] = []
    while time.monotonic() < deadline:
        left = [
            p.name for parent in jobs.parents.values() for p in parent.iterdir() if p.name.startswith(ours)
        ]
        if not left:
            break
        time.sleep(0.1)
    assert not left, f"job groups left behind: {left}"


def test_groups_a_killed_server_left_are_removed_when_the_next_one_starts(pool) -> None:
    """A server killed outright (SIGKILL) removes none of its jobs' groups: the next server's
    pool removes the groups named for a process that no longer exists, and no other."""
    jobs = need_cgroups(pool)
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer exists
    names = [f"job-{dead.pid}-0", f"job-{os.getpid()}-999999"]  # a dead server's, and ours
    for parent in jobs.parents.values():
        for name in names:
            (parent / name).mkdir()
    try:
        assert JobCgroups.find() is not None
        left = {p.name for parent in jobs.parents.values() for p in parent.iterdir()}
        assert names[0] not in left and names[1] in left
    finally:
        for parent in jobs.parents.values():
            for name in names:
                if (parent / name).exists():
                    (parent / name).rmdir()
