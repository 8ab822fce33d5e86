"""The sandbox pool's contract: reports carry isolation and limits, queueing, busy, fallbacks."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time
from importlib.metadata import version

import figures
import pytest
import repo_paths
from sandbox_support import SETTINGS, poll, pool, script, timed  # noqa: F401 - pool: fixture

from playground.contract.errors import LimitError, SandboxError
from playground.contract.job import Job
from playground.contract.job_control import JobControl
from playground.runs.fairness import ClientLimits, FairExecutor
from playground.sandbox import WorkerPool, run_once
from playground.sandbox.leftovers import processes_of
from playground.sandbox.process import REDUCED, WARMING_NICE


def test_report_carries_sandbox_and_executor(pool):
    report, _ = timed(pool, script("print('hello')\n"))
    assert (report.status, report.stdout) == ("ok", "hello\n")
    assert report.sandbox.isolation == pool.isolation in ("bubblewrap", "process")
    assert report.sandbox.limits["cpu_s"] == SETTINGS.cpu_s
    assert report.sandbox.limits["wall_s"] == SETTINGS.timeout_s
    assert report.executor.kind == "local" and report.executor.node
    assert (REDUCED in " ".join(report.sandbox.notes)) == (pool.isolation == "process")


def test_tracebacks_name_the_read_only_job_file(pool):
    report, _ = timed(pool, script("x = 1\nraise ValueError('boom')\n"))
    assert report.status == "error"
    assert report.error.type == "ValueError" and report.error.line == 2
    assert report.message.startswith("ValueError (line 2): boom")


XLA_JOB = """import os
import tensorflow as tf

@tf.function(jit_compile=True)
def scaled(x):
    return tf.reduce_sum(x * 1.0 + 0.0)

print(os.environ.get("XLA_FLAGS") is not None)
"""


def test_a_worker_dumps_xlas_passes_only_when_asked_and_only_the_inspectors(pool):
    # A fresh worker sets XLA's dump flags before the job's code: the passes come back. Without
    # --passes it sets nothing, and the script's environment is as plain python's.
    asked, _ = timed(pool, Job(source=XLA_JOB, function="scaled", calls=("float32[8]",), passes=True))
    plain, _ = timed(pool, Job(source=XLA_JOB, function="scaled", calls=("float32[8]",)))
    (views,) = asked.functions
    assert asked.status == "ok" and views.hlo_passes and views.xla_cost is not None
    assert [p.name for p in views.hlo_passes if p.name == "algsimp"] == ["algsimp"]  # x * 1.0 + 0.0
    assert (asked.stdout, plain.stdout) == ("True\n", "False\n")
    assert plain.functions[0].hlo_passes == [] and plain.functions[0].hlo


def test_queued_jobs_learn_their_position_and_all_finish(pool):
    events: list[list[dict]] = [[] for _ in range(4)]
    reports = [None] * 4

    def run(i):
        reports[i] = pool.submit(
            script(f"import time\ntime.sleep(0.5)\nprint({i})\n"), on_event=events[i].append
        )

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [r.stdout.strip() for r in reports] == ["0", "1", "2", "3"]
    assert all({"event": "started"} in e for e in events)
    queued = [ev for e in events for ev in e if ev["event"] == "queued"]
    assert queued and all(ev["position"] >= 0 for ev in queued)  # 4 jobs, 2 workers


def test_full_queue_says_busy_at_once():
    settings = dataclasses.replace(SETTINGS, pool_size=1, queue_limit=1)
    with WorkerPool(settings) as small:
        assert small.wait_ready()
        first_started = threading.Event()
        second_queued = threading.Event()
        threads = [
            threading.Thread(
                target=small.submit,
                args=(script("import time\ntime.sleep(3)\n"),),
                kwargs={"on_event": lambda e: e["event"] == "started" and first_started.set()},
            ),
            threading.Thread(
                target=lambda: (
                    first_started.wait(30),
                    small.submit(
                        script("print(1)\n"),
                        on_event=lambda e: e["event"] == "queued" and second_queued.set(),
                    ),
                )
            ),
        ]
        for t in threads:
            t.start()
        assert second_queued.wait(30)
        started = time.monotonic()
        with pytest.raises(LimitError, match=r"^Busy: 1 jobs queued; try again in ~\d+ s$"):
            small.submit(script("print(2)\n"))
        assert time.monotonic() - started < 1.0
        for t in threads:
            t.join(60)


def test_worker_that_exits_without_report_still_reports(pool):
    report, wall = timed(pool, script("import os\nos._exit(3)\n"))
    assert report.status == "killed"
    assert report.message == "Killed: the job ended its worker (exit status 3) before it reported"
    # The worker said where it ran before the code started, so even this report knows.
    assert (report.tensorflow_version, report.functions) == (version("tensorflow"), [])
    assert report.sandbox is not None and wall < 8


def test_worker_killed_by_a_signal_still_reports(pool):
    report, _ = timed(pool, script("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"))
    assert report.status == "killed"
    assert report.message == "Killed: the job's process ended by SIGSEGV"


def test_closed_pool_refuses_jobs():
    closed = WorkerPool(dataclasses.replace(SETTINGS, pool_size=1))
    closed.close()
    with pytest.raises(SandboxError, match="closed"):
        closed.submit(script("print(1)\n"))


def test_run_once_is_the_same_sandbox_without_a_pool():
    report = run_once(
        Job(source="def f(x):\n    return x + 1\n", function="f", calls=("float32[3]",)), SETTINGS
    )
    assert report.status == "ok", report.message
    assert report.functions[0].tracing_count == 1
    assert report.sandbox.isolation in ("bubblewrap", "process")


def test_process_fallback_is_labelled_reduced():
    report = run_once(script("print('fallback')\n"), dataclasses.replace(SETTINGS, isolation="process"))
    assert (report.status, report.stdout) == ("ok", "fallback\n")
    assert report.sandbox.isolation == "process"
    assert any(note.startswith(REDUCED) for note in report.sandbox.notes)


def test_importing_the_pool_does_not_import_tensorflow():
    code = (
        "import sys, playground.sandbox, playground.sandbox.pool, playground.runs.executor\n"
        "assert 'tensorflow' not in sys.modules and 'playground.engine' not in sys.modules\n"
    )
    root = str(repo_paths.ROOT)
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("fork_workers", ["auto", "off"])
def test_no_worker_processes_outlive_close(fork_workers):
    settings = dataclasses.replace(SETTINGS, pool_size=1, fork_workers=fork_workers)
    with WorkerPool(settings) as p:
        assert p.wait_ready()
        warm = p._ready[0]
        assert warm.pid is not None and warm.uid is not None or os.geteuid() != 0
        report = p.submit(script("print('ran')\n"))
        assert report.stdout == "ran\n"
        pids = processes_of(warm.uid) if warm.uid is not None else []
        assert pids or warm.uid is None  # the warm worker (and a zygote) live now
    assert poll(
        lambda: all(
            not os.path.exists(f"/proc/{pid}")
            or open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
            for pid in pids
        )
    )


def _nice_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])  # field 19: nice


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can restore a worker's priority")
def test_fresh_warming_workers_yield_the_cpu_and_jobs_run_at_normal_priority():
    """A fresh worker's TF import runs at low priority; a forked worker has none to pay."""
    with WorkerPool(dataclasses.replace(SETTINGS, pool_size=1, fork_workers="off")) as fresh:
        assert fresh.wait_ready()
        warm = fresh._ready[0]
        pids = processes_of(warm.uid)
        assert pids and all(_nice_of(p) == WARMING_NICE for p in pids)
        source = (
            "import os\nthreads = os.listdir('/proc/self/task')\n"
            "print(sorted({int(open(f'/proc/self/task/{t}/stat').read().rsplit(')', 1)[1]"
            ".split()[16]) for t in threads}))\n"
        )
        report = fresh.submit(script(source))
    assert report.status == "ok", report.message
    assert report.stdout.strip() == "[0]"  # every thread of the job, TF's included


def test_a_stopped_run_frees_its_worker_within_a_second_and_is_billed_what_it_ran(pool, request):
    """The page's Stop: JobControl.stop through the fair queue to the pool, on a job that
    never ends and sends nothing (a sleeping loop: under the CPU limit, no events)."""
    fair = FairExecutor(pool, ClientLimits.from_settings(SETTINGS))
    control, events, ended = JobControl(), [], {}

    def run() -> None:
        ended["report"] = fair.submit(
            script("import time\nwhile True:\n    time.sleep(0.05)\n"), events.append, "visitor", control
        )

    thread = threading.Thread(target=run)
    thread.start()
    assert poll(lambda: {"event": "started"} in events, timeout_s=60)
    started = time.monotonic()
    time.sleep(2.0)
    stopped = time.monotonic()
    control.stop.set()
    thread.join(10)
    freed = time.monotonic() - stopped
    assert not thread.is_alive() and freed < 1.0
    assert ended["report"].status == "killed", ended["report"].message
    (billed,) = fair.queue.billed("visitor")
    figures.report(
        request.config,
        f"stop: submit returned {freed:.2f} s after Stop; billed {billed:.2f} s for {stopped - started:.2f} s run",
    )
    assert abs(billed - (stopped - started)) < 0.5, billed  # what it ran, not its time limit
    report, seconds = timed(pool, script("print('next')\n"))  # the worker is free again
    assert report.stdout == "next\n"


def test_a_fresh_pool_is_warming_until_its_first_worker_has_imported_tensorflow():
    from playground.sandbox.pool import WARM_UP_S

    with WorkerPool(dataclasses.replace(SETTINGS, pool_size=1)) as fresh:
        left = fresh.warming_s()
        assert left is not None and 1.0 <= left <= WARM_UP_S
        gate = FairExecutor(fresh, ClientLimits())
        assert gate.warming_s() == pytest.approx(left, abs=2.0)
        assert fresh.wait_ready()
        assert fresh.warming_s() is None and gate.warming_s() is None
        assert 0 < fresh.warm_after_s() < 120
        print(f"first warm worker after {fresh.warm_after_s():.1f} s")  # the estimate's evidence
