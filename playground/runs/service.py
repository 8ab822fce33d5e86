"""Service plumbing for the hosted app: an executor that rebuilds a dead pool, and the one log
line per run (who, how long, how it ended, how isolated; never the user's code)."""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable

from ..contract.errors import Cancelled, LimitError, Maintenance, SandboxError, SpecError, WarmingUp
from ..contract.job import Job, Report
from ..contract.job_control import JobControl
from . import metrics
from .executor import Executor, OnEvent, stats_of, warming_s

log = logging.getLogger("playground.runs")


def configure_logging() -> None:
    """Logs to stderr, once per process (Streamlit reruns the page script on every click): the
    run lines as bare JSON lines (each carries its own time), the rest as text."""
    root = logging.getLogger("playground")
    if not any(getattr(h, "_playground", False) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler._playground = True  # type: ignore[attr-defined]
        handler.addFilter(lambda record: record.name != log.name)  # those have their own
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        runs = logging.StreamHandler()
        runs.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(runs)


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

    def stats(self) -> list[dict]:
        return [*stats_of(self._current()), {"restarts": self.restarts}]

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
    """The one log line per Run, a JSON object (docs/hosting.md says what it holds and what it
    never holds: the code, the address), and the Run counted for /metrics. Returns the line."""
    record: dict[str, object] = {
        "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
        "event": "run",
        "request": uuid.uuid4().hex[:12],
        "client": session_tag(client) if client else None,
        "session": session_tag(session_id),
        "duration_s": round(time.monotonic() - started, 3),
    }
    if report is not None:
        metrics.count_run(report.status)
        record.update(
            outcome=report.status,
            isolation=report.sandbox.isolation if report.sandbox else None,
            traces=report.tracing_count,
            executor=report.executor.kind if report.executor else None,
            sandbox_cpu_s=report.sandbox.cpu_s if report.sandbox else None,
        )
    else:
        reason = refusal_reason(error)
        metrics.count_refusal(reason)
        record.update(outcome="refused", reason=reason)
    line = json.dumps(record, separators=(",", ":"))
    log.info(line)
    return line


# Most specific first: WarmingUp and Maintenance are LimitErrors.
_REASONS: tuple[tuple[type[BaseException], str], ...] = (
    (WarmingUp, "warming"),
    (Maintenance, "maintenance"),
    (Cancelled, "cancelled"),
    (LimitError, "limit"),
    (SandboxError, "sandbox"),
    (SpecError, "invalid"),
)


def refusal_reason(error: BaseException | None) -> str:
    """A Run that ended without a report, in one word of a fixed set (a metrics label)."""
    return next((word for kind, word in _REASONS if isinstance(error, kind)), "other")
