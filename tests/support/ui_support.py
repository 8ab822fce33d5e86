"""Executors for UI tests and benches: replay recorded reports, or run the engine in a child process."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading

import repo_paths

from playground.contract.errors import SandboxError
from playground.contract.job import Job, Report, job_from_json, job_to_json

DATA = repo_paths.DATA
ROOT = repo_paths.ROOT
EXPORT_DIR_ENV = "PLAYGROUND_REPLAY_EXPORT_DIR"  # replaces "{export_dir}" in recorded exports


def _key(job: Job) -> tuple:
    return (
        job.source.strip(),
        job.function,
        tuple(job.calls),
        job.timing,
        job.jit_compile,
        job.sweep or None,
        job.export,
        job.reduce_retracing,
        job.signature or None,
        job.numbers,
        job.tolerance,
    )


class ReplayExecutor:
    """Returns the recorded report whose job matches; streams the events a worker would send."""

    def __init__(self) -> None:
        self.reports = {}
        for path in DATA.glob("*.job.json"):
            job = job_from_json(path.read_text())
            report_path = path.with_name(path.name.replace(".job.json", ".json"))
            self.reports[_key(job)] = report_path
        self.submitted: list[Job] = []
        self.lock = threading.Lock()

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        with self.lock:
            self.submitted.append(job)
        path = self.reports.get(_key(job))
        if path is None:
            raise SandboxError(
                f"no recorded report for this job (function {job.function!r}); "
                "record one with tests/data/record.py"
            )
        report = Report.from_json(path.read_text())
        if report.export is not None and report.export.path == "{export_dir}":
            # Hand-made export recordings point at a directory the test creates.
            path_now = os.environ.get(EXPORT_DIR_ENV, "")
            report = dataclasses.replace(report, export=dataclasses.replace(report.export, path=path_now))
        emit = on_event or (lambda event: None)
        emit({"event": "queued", "position": 1, "eta_s": 3})
        emit({"event": "started"})
        for function in report.functions:
            for call in function.calls:
                emit(
                    {
                        "event": "call_finished",
                        "function": function.name,
                        "index": call.index,
                        "retraced": call.retraced,
                        "reason": call.reason,
                        "tracing_count": call.tracing_count,
                    }
                )
        return report

    def close(self) -> None:
        pass


class CrashingExecutor:
    """A worker that dies mid-job: the pool reports it as status "killed"."""

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        return Report(
            tensorflow_version="2.21.0",
            device="CPU",
            status="killed",
            error=None,
            stdout="",
            warnings=[],
            functions=[],
            message="the worker was killed (signal 9) before it finished",
        )

    def close(self) -> None:
        pass


class SubprocessExecutor:
    """Stand-in for the sandbox pool: one unsandboxed child process per job (isolation "none")."""

    SCRIPT = (  # a fresh process, as the sandbox's worker: XLA's passes dumped (engine/xla.py)
        "import sys; from playground.engine import xla; from playground.engine.pipeline import analyze; "
        "from playground.contract.job import job_from_json; job = job_from_json(sys.stdin.read()); "
        "job.passes and xla.dump_passes(); sys.stdout.write(analyze(job).to_json())"
    )

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        done = subprocess.run(
            [sys.executable, "-c", self.SCRIPT],
            input=job_to_json(job),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=job.timeout_s + 30,
        )
        if done.returncode != 0:
            raise SandboxError(f"worker exited {done.returncode}: {done.stderr[-500:]}")
        return Report.from_json(done.stdout)

    def close(self) -> None:
        pass


class HugeReportExecutor:
    """A worker's report as large as the host lets one through (every timing sample a list of
    100,000 items, within the upload cap), as a worker running hostile code can forge it."""

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        import hostile_files

        from playground.contract import protocol

        return protocol.decode_report(hostile_files.timing_sample(hostile_files.upload_cap()))

    def close(self) -> None:
        pass


def huge_report() -> HugeReportExecutor:
    return HugeReportExecutor()


def replay() -> ReplayExecutor:
    return ReplayExecutor()


def crashing() -> CrashingExecutor:
    return CrashingExecutor()


def until_warm(timeout_s: float = 240.0) -> None:
    """Until the server's executor takes Runs (a fresh pool imports TensorFlow first)."""
    import time

    from playground.runs import shared

    deadline = time.monotonic() + timeout_s
    while shared.executor().warming_s() is not None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the sandbox did not warm up within {timeout_s:g} s")
        time.sleep(0.25)


def real_or_subprocess() -> object:
    """The sandbox pool when it exists, else the child-process stand-in."""
    pool = real_pool()
    return pool if pool is not None else SubprocessExecutor()


def real_pool() -> object | None:
    try:
        from playground.sandbox.pool import WorkerPool  # noqa: F401
    except ImportError:
        return None
    from playground.contract.config import Settings
    from playground.runs.executor import make_executor

    return make_executor(Settings.from_env())


def subprocess_engine() -> SubprocessExecutor:
    return SubprocessExecutor()
