"""Faults of the sandbox itself, injected from the host while jobs run (issue 55): a killed or
frozen keeper or zygote, a warm worker killed while idle, and a job that grows its stderr.
Each job meets a sentence that names the sandbox, not its code, within its limit + 2 s; the
pool rebuilds itself and the next job runs."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from sandbox_support import (
    need_bwrap,
    pool,  # noqa: F401 - pool is a fixture
    script,
    timed,
)

from playground.contract.job import Report
from playground.runs.executor import JobControl
from playground.sandbox.leftovers import host_pid

SANDBOX_FAILED = "The sandbox failed"
SLEEPER = "import time\nprint('started', flush=True)\ntime.sleep(10**6)\n"


class Running:
    """A job submitted on a thread of its own; `report` once it has ended."""

    def __init__(self, pool, source: str, timeout_s: float) -> None:  # type: ignore[no-untyped-def]
        self.report: Report | None = None
        self.control = JobControl()
        self.started = time.monotonic()
        self.ended = 0.0
        self.thread = threading.Thread(target=self._run, args=(pool, source, timeout_s), daemon=True)
        self.thread.start()

    def _run(self, pool, source: str, timeout_s: float) -> None:  # type: ignore[no-untyped-def]
        self.report = pool.submit(script(source, timeout_s=timeout_s), control=self.control)
        self.ended = time.monotonic()

    def wait(self, timeout_s: float) -> Report:
        self.thread.join(timeout_s)
        assert self.report is not None, f"no answer {timeout_s:g} s after the fault"
        return self.report


def running_worker(pool, job: Running):  # type: ignore[no-untyped-def]
    """The forked worker running `job`: its zygote's child, in the uid the job was given."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for zygote in pool._zygotes.running():
            child = zygote.child
            if child is not None and job.control.uid == zygote.uid and child.keeper:
                return child
        time.sleep(0.05)
    raise AssertionError("no job started")


def next_job_runs(pool) -> float:  # type: ignore[no-untyped-def]
    """Seconds until an ordinary job succeeds after a fault (target: 10)."""
    started = time.monotonic()
    report, _ = timed(pool, script("print('next job')\n"))
    assert (report.status, report.stdout.strip()) == ("ok", "next job"), report.message
    return time.monotonic() - started


def forked(pool) -> None:  # type: ignore[no-untyped-def]
    need_bwrap(pool, "the keeper and the zygote exist only where jobs are forked")
    if pool._zygotes is None:
        pytest.skip("workers are not forked from zygotes here (PLAYGROUND_FORK_WORKERS)")


@pytest.mark.parametrize("victim", ["keeper", "zygote"])
def test_a_killed_keeper_or_zygote_is_the_sandbox_s_fault(pool, victim) -> None:
    forked(pool)
    job = Running(pool, SLEEPER, timeout_s=20)
    worker = running_worker(pool, job)
    time.sleep(0.5)  # the job's code is running
    target = (
        host_pid(worker.zygote.pid_namespace, worker.keeper)
        if victim == "keeper"
        else worker.zygote.host_pid()
    )
    assert target
    killed = time.monotonic()
    os.kill(target, signal.SIGKILL)
    report = job.wait(2 + 5)
    answered = job.ended - killed
    assert report.status == "killed"
    assert report.message.startswith(SANDBOX_FAILED), report.message
    assert "not the cause" in report.message
    assert answered < 2, f"answered {answered:.1f} s after the {victim} was killed"
    print(f"{victim} killed: answered in {answered:.2f} s, next job ok in {next_job_runs(pool):.2f} s")


def test_a_frozen_zygote_does_not_hold_a_job_past_its_limit(pool) -> None:
    forked(pool)
    job = Running(pool, SLEEPER, timeout_s=3)
    worker = running_worker(pool, job)
    frozen = worker.zygote.host_pid()
    assert frozen
    os.kill(frozen, signal.SIGSTOP)
    try:
        report = job.wait(3 + 2 + 5)
        wall = job.ended - job.started
        assert report.status == "timeout", report.message
        assert wall < 3 + 2, f"the job's answer came {wall:.1f} s after it started (limit 3 s)"
        print(
            f"frozen zygote: the job answered {wall:.2f} s after its start, next job {next_job_runs(pool):.2f} s"
        )
    finally:
        try:
            os.kill(frozen, signal.SIGCONT)
        except ProcessLookupError:
            pass


def test_a_zygote_frozen_while_idle_is_replaced_not_waited_for(pool) -> None:
    """A refill asks a zygote to fork; a frozen one would hold that ask for its whole reply
    timeout (20 s) while jobs queue. It is seen stopped and replaced first."""
    forked(pool)
    assert pool.wait_ready(), "the pool did not warm up"
    zygotes = pool._zygotes.running()
    stopped = [pid for pid in (z.host_pid() for z in zygotes) if pid]
    assert len(stopped) == len(zygotes)
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        # Both warm workers serve a job each; each refill then meets a frozen zygote.
        seconds = [next_job_runs(pool) for _ in range(len(zygotes) + 1)]
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    assert max(seconds) < 10, seconds
    print("frozen idle zygotes: jobs ran in " + ", ".join(f"{s:.2f}" for s in seconds) + " s")


def test_an_idle_warm_worker_killed_takes_no_job_with_it(pool) -> None:
    forked(pool)
    assert pool.wait_ready(), "the pool did not warm up"
    for idle in list(pool._ready):
        init = host_pid(idle.pid_namespace, 1)
        assert init
        os.kill(init, signal.SIGKILL)  # its init: the whole namespace
    time.sleep(0.3)
    seconds = next_job_runs(pool)
    assert seconds < 10
    print(f"idle workers killed: the next job ran ok in {seconds:.2f} s")


def test_a_job_can_grow_no_descriptor_it_inherited(pool) -> None:
    """fallocate on the stderr the host handed the job (the engine keeps a copy while it
    captures fd 2) grew a file on the host's disk past every output cap: 1 GiB, held."""
    # FALLOC_FL_KEEP_SIZE: the blocks are allocated, the size stays, RLIMIT_FSIZE never looks.
    source = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]\n"
        "for fd in range(64):\n"
        "    if libc.fallocate(fd, 1, 0, 1 << 30) == 0:\n"
        "        print('GREW', fd, os.readlink(f'/proc/self/fd/{fd}'))\n"
        "print('done')\n"
    )
    report, _ = timed(pool, script(source))
    assert report.status == "ok", report.message
    assert "done" in report.stdout and "GREW" not in report.stdout, report.stdout


# Two jobs at once, one holding a lock on a file of the read-only tree they share (the
# standard library's os.py), the other probing it: a lock is a bit one visitor's job can set
# and another's read. Both are refused, flock and fcntl's locks alike (seccomp.py).
LOCKS = """
import fcntl, os, time
shared = open(os.__file__, 'rb')
for name, lock in (
    ('flock', lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)),
    ('lockf', lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)),
    ('ofd', lambda: fcntl.fcntl(shared, 37, bytes(32))),  # F_OFD_SETLK
):
    try:
        lock()
        print(name, 'held')
    except OSError as error:
        print(name, os.strerror(error.errno))
print('flags', fcntl.fcntl(shared, fcntl.F_GETFL) >= 0)  # other commands still work
time.sleep(1)
"""


def test_jobs_share_no_lock_on_the_read_only_tree(pool) -> None:
    jobs = [Running(pool, LOCKS, timeout_s=20) for _ in range(2)]
    for job in jobs:
        report = job.wait(30)
        assert report.status == "ok", report.message
        lines = dict(line.split(" ", 1) for line in report.stdout.splitlines())
        refused = os.strerror(1)  # EPERM: the filter's answer
        assert lines == {"flock": refused, "lockf": refused, "ofd": refused, "flags": "True"}, report.stdout


def test_a_refused_lock_is_explained(pool) -> None:
    """SQLite on a file takes a lock: the job is told why it was refused, and the way round."""
    source = "import sqlite3\nsqlite3.connect('/tmp/x.db').execute('create table t(a)')\n"
    report, _ = timed(pool, script(source))
    assert report.status == "error"
    assert report.message.startswith("File locks are refused in the playground"), report.message
    fine, _ = timed(
        pool,
        script(
            "import sqlite3\nprint(sqlite3.connect('file:/tmp/y.db?nolock=1', uri=True)"
            ".execute('select 1').fetchall())\n"
        ),
    )
    assert (fine.status, fine.stdout.strip()) == ("ok", "[(1,)]"), fine.message
