"""Shared helpers for the sandbox tests: a small-limit pool, timed submits, survivor checks."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

from playground.contract.config import Settings
from playground.contract.job import Job, Report
from playground.sandbox import WorkerPool
from playground.sandbox.leftovers import processes_of

SECRET = "s3cret-playground-test-value"  # set in the server env; must never reach a job
# Small limits keep the suite fast on 2 cores: CPU below wall, so each limit can be hit alone.
SETTINGS = Settings(
    pool_size=2,
    queue_limit=16,
    timeout_s=20.0,
    cpu_s=5,
    memory_mb=4096,
    file_mb=16,
    tmp_mb=32,
    processes=128,
    open_files=256,
)


@pytest.fixture(scope="module")
def pool():
    """A warm pool per test module; the server env holds a secret no job may see."""
    os.environ["PLAYGROUND_TEST_SECRET"] = SECRET
    with WorkerPool(SETTINGS) as p:
        assert p.wait_ready(), "the sandbox pool did not warm up"
        yield p


def timed(pool, job: Job) -> tuple[Report, float]:
    started = time.monotonic()
    report = pool.submit(job)
    return report, time.monotonic() - started


def script(source: str, timeout_s: float = 30.0) -> Job:
    return Job(source=source, function=None, timeout_s=timeout_s)


def need_bwrap(pool, why: str) -> None:
    if pool.isolation != "bubblewrap":
        pytest.skip(
            f"needs bubblewrap namespaces ({why}); this machine runs the process "
            f"fallback: {'; '.join(pool.config.notes)}"
        )


def need_own_uid(pool, why: str) -> None:
    if os.geteuid() != 0 and pool.isolation != "bubblewrap":
        pytest.skip(f"needs a dedicated job uid (run as root) or bubblewrap ({why})")


def poll(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def pid_namespace_of(pid: int) -> int:
    try:
        return os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return 0  # gone meanwhile


def nothing_left(report: Report, pool: WorkerPool) -> bool:
    """Nothing the job started is left. A fresh worker's uid was the job's alone, so no process
    of it may remain. A forked worker shares its uid with its zygote, so what may remain are the
    zygote's own sandbox and warm workers that have run nothing yet, each in a PID namespace
    the pool knows; any other namespace of that uid is the job's, and must be empty."""
    uid = report.sandbox.limits.get("uid") if report.sandbox else None
    if uid is None:
        return True
    if pool._zygotes is None:
        return poll(lambda: not processes_of(uid))
    host = os.stat("/proc/self/ns/pid").st_ino

    def only_warm_left() -> bool:
        allowed = (
            {host}
            | {z.pid_namespace for z in pool._zygotes.running()}
            | {w.pid_namespace for w in list(pool._ready)}
        )
        return all(pid_namespace_of(p) in allowed | {0} for p in processes_of(uid))

    return poll(only_warm_left)


def cmdline_gone(token: str) -> bool:
    def none_left() -> bool:
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/cmdline", "rb") as f:
                        if token.encode() in f.read():
                            return False
                except OSError:
                    pass
        return True

    return poll(none_left)
