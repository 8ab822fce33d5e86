"""Supervises one job on one worker: wall clock, event stream, and killing all it started."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..contract.job import Job
from . import exports
from .process import WorkerProcess

DEMOTED_NICE = 19                 # the lowest priority: a long job runs on what others leave


@dataclass
class Outcome:
    """What the parent saw; outcome.finish turns it into the user's Report."""

    report: Optional[dict[str, Any]] = None
    crash: Optional[dict[str, Any]] = None
    timed_out: bool = False
    overflow: bool = False
    signal: Optional[int] = None
    exit_code: Optional[int] = None
    stderr: str = ""
    wall_s: float = 0.0
    job: Optional[Job] = None
    files: exports.FileSink = field(default_factory=exports.FileSink)
    environment: dict[str, Any] = field(default_factory=dict)  # said before the user's code ran
    demoted_after_s: Optional[float] = None  # when it went on at DEMOTED_NICE, if it did


def supervise(worker: WorkerProcess, job: Job, timeout_s: float,
              on_event: Optional[Callable[[dict], None]] = None,
              demote_after_s: float = 0.0) -> Outcome:
    """Runs the job; whatever happens, the worker and everything it started are killed. A job
    still running after demote_after_s (0: never) goes on at the lowest CPU priority, so a
    short run of anyone else's gets the cores first (a multilevel feedback queue's rule)."""
    started = time.monotonic()
    deadline = started + timeout_s
    demote_at = started + demote_after_s if 0 < demote_after_s < timeout_s else None
    outcome = Outcome(files=exports.FileSink(accept=job.export))   # only an export sends files
    try:
        outcome.job = worker.start_job(job)
        while not _read_events(worker, demote_at or deadline, outcome, on_event):
            if demote_at is None:            # the stream stopped at the deadline itself
                raise TimeoutError()
            worker.set_priority(DEMOTED_NICE)
            outcome.demoted_after_s, demote_at = demote_after_s, None
            if on_event is not None:         # the fair queue lets a short job in beside it
                _forward(on_event, {"event": "demoted", "after_s": demote_after_s})
    except TimeoutError:
        outcome.timed_out = True
    except OverflowError:
        outcome.overflow = True
    except OSError:
        pass                                 # the worker vanished; decided from exit status
    finally:
        outcome.wall_s = time.monotonic() - started
        done = outcome.report is not None or outcome.crash is not None
        if not done and not outcome.timed_out and not outcome.overflow:
            outcome.signal = worker.exit_signal(timeout_s=2.0)   # died on its own: why?
            outcome.exit_code = worker.exit_code()
        worker.kill()
        outcome.stderr = "" if done else worker.stderr_tail()
    return outcome


def _read_events(worker: WorkerProcess, until: float, outcome: Outcome,
                 on_event: Optional[Callable[[dict], None]]) -> bool:
    """Reads the job's events into the outcome; True once the stream ended, False at `until`."""
    try:
        for event in worker.events(until):
            kind = event.get("event")
            if kind == "report":
                outcome.report = event.get("report")
                return True
            if kind == "crash":
                outcome.crash = event
                return True
            if kind == "file":
                outcome.files.receive(event)
                continue
            if kind == "environment":
                outcome.environment = event
            if on_event is not None and kind not in ("ready",):
                _forward(on_event, event)
    except TimeoutError:
        return False
    return True


def _forward(on_event: Callable[[dict], None], event: dict) -> None:
    try:
        on_event(event)
    except Exception:  # a broken UI callback must not lose the job's report
        pass
