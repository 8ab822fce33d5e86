"""Service plumbing for the hosted app: an executor that rebuilds a dead pool, and the one log
line per run (who, how long, how it ended, how isolated; never the user's code)."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable

from ..contract.errors import SandboxError
from ..contract.job import Job, Report
from ..contract.job_control import JobControl
from .executor import Executor, OnEvent, warming_s

log = logging.getLogger("playground.runs")


def configure_logging() -> None:
    """Run lines to stderr, once per process (Streamlit reruns the page script on every click)."""
    root = logging.getLogger("playground")
    if not any(getattr(h, "_playground", False) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler._playground = True  # type: ignore[attr-defined]
        root.addHandler(handler)
        root.setLevel(logging.INFO)


class RestartingExecutor:
    """Wraps an executor factory; when the executor reports it cannot run jobs at all (its
    workers keep failing to start, or it was closed), it is replaced once and the job retried.
    Safe to retry: a SandboxError is raised before any of the job's code ran."""

    def __init__(self, factory: Callable[[], Executor]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._executor: Executor | None = None
        self.restarts = 0

    def _current(self) -> Executor:
        with self._lock:
            if self._executor is None:
                self._executor = self._factory()
            return self._executor

    def _replace(self, broken: Executor) -> None:
        with self._lock:
            if self._executor is broken:  # another session may have replaced it already
                self._executor = None
                self.restarts += 1
        try:
            broken.close()
        except Exception:  # noqa: BLE001 - a broken pool may fail to close; it is dropped either way
            pass

    def submit(self, job: Job, on_event: OnEvent | None = None, control: JobControl | None = None) -> Report:
        executor = self._current()
        try:
            return executor.submit(job, on_event, control)
        except SandboxError as e:
            log.warning("executor failed (%s); starting a new one", e)
            self._replace(executor)
            return self._current().submit(job, on_event, control)

    def warming_s(self) -> float | None:
        return warming_s(self._current())

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.close()


def session_tag(session_id: str) -> str:
    """A short, stable, non-reversible tag, so logs can group a session's (or a client's) runs
    without holding its id or address."""
    return hashlib.sha256(session_id.encode()).hexdigest()[:10]


def log_run(
    session_id: str,
    started: float,
    report: Report | None = None,
    error: BaseException | None = None,
    client: str = "",
) -> str:
    duration = time.monotonic() - started
    who = f"client={session_tag(client)} " if client else ""
    if report is not None:
        isolation = report.sandbox.isolation if report.sandbox else "unknown"
        line = (
            f"run {who}session={session_tag(session_id)} duration={duration:.2f}s "
            f"status={report.status} isolation={isolation} traces={report.tracing_count} "
            f"executor={report.executor.kind if report.executor else 'unknown'}"
            + (
                f" sandbox_cpu={report.sandbox.cpu_s:.2f}s"
                if report.sandbox and report.sandbox.cpu_s is not None
                else ""
            )
        )
    else:
        line = (
            f"run {who}session={session_tag(session_id)} duration={duration:.2f}s "
            f"status=refused reason={type(error).__name__ if error else 'unknown'}"
        )
    log.info(line)
    return line
