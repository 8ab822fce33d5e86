"""Supervises one job on one worker: wall clock, event stream, and killing all it started.

Everything the worker says is decoded and bounded on the way in (contract/protocol.py); the
facts the host acts on (how long the job ran, whether it was demoted, when it must stop) come
from the supervisor's own clock, never from a message.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..contract import protocol
from ..contract.errors import Cancelled
from ..contract.job import Job, Report
from . import exports
from .process import SandboxedWorker

DEMOTED_NICE = 19  # the lowest priority: a long job runs on what others leave


@dataclass
class Outcome:
    """What the parent saw; outcome.finish turns it into the user's Report."""

    report: Report | None = None
    crash: protocol.Crash | None = None
    timed_out: bool = False
    overflow: bool = False
    malformed: str = ""  # why the worker's stream was refused, if it was
    signal: int | None = None
    exit_code: int | None = None
    fault: str | None = None  # the part of the sandbox that died from outside (worker.fault)
    oom_killed: bool = False  # the kernel killed it for its cgroup's memory limit
    memory_peak_mb: float | None = None  # its cgroup's peak, read by the host
    stderr: str = ""
    wall_s: float = 0.0  # the supervisor's clock: what the job is billed
    cpu_s: float | None = None  # the host's reading of /proc as the job ended
    job: Job | None = None
    files: exports.FileSink = field(default_factory=exports.FileSink)
    environment: protocol.Environment | None = None  # said before the user's code ran
    demoted_after_s: float | None = None  # when it went on at DEMOTED_NICE, if it did


def supervise(
    worker: SandboxedWorker,
    job: Job,
    timeout_s: float,
    on_event: protocol.OnEvent | None = None,
    demote_after_s: float = 0.0,
) -> Outcome:
    """Runs the job; whatever happens, the worker and everything it started are killed. A job
    still running after demote_after_s (0: never) goes on at the lowest CPU priority, so a
    short run of anyone else's gets the cores first (a multilevel feedback queue's rule).
    Cancelled, raised by on_event when the client has gone, stops the job and propagates."""
    started = time.monotonic()
    deadline = started + timeout_s
    demote_at = started + demote_after_s if 0 < demote_after_s < timeout_s else None
    outcome = Outcome(files=exports.FileSink(accept=job.export))  # only an export sends files
    try:
        outcome.job = worker.start_job(job)
        while not _read_events(worker, demote_at or deadline, outcome, on_event):
            if demote_at is None:  # the stream stopped at the deadline itself
                raise TimeoutError()
            worker.set_priority(DEMOTED_NICE)
            outcome.demoted_after_s, demote_at = demote_after_s, None
            if on_event is not None:  # the fair queue lets a short job in beside it
                _forward(on_event, protocol.as_event(protocol.Demoted(demote_after_s)))
    except TimeoutError:
        outcome.timed_out = True
    except protocol.StreamTooLarge:
        outcome.overflow = True
    except protocol.MalformedMessage as error:
        outcome.malformed = str(error)
    except OSError:
        pass  # the worker vanished; decided from exit status
    finally:
        outcome.wall_s = time.monotonic() - started
        done = outcome.report is not None or outcome.crash is not None
        ended = done or outcome.timed_out or outcome.overflow or outcome.malformed
        if not ended:
            outcome.signal = worker.exit_signal(timeout_s=2.0)  # died on its own: why?
            outcome.exit_code = worker.exit_code()
            outcome.fault = worker.fault()
        outcome.cpu_s = worker.cpu_seconds()
        outcome.oom_killed = worker.oom_killed()  # a killed child does not end the job itself
        outcome.memory_peak_mb = worker.memory_peak_mb()
        worker.kill()
        outcome.stderr = "" if done else worker.stderr_tail()
    return outcome


def _read_events(
    worker: SandboxedWorker, until: float, outcome: Outcome, on_event: protocol.OnEvent | None
) -> bool:
    """Reads the job's messages into the outcome; True once the stream ended, False at
    `until`. Only progress is passed on, rebuilt from its decoded fields."""
    try:
        for message in worker.events(until):
            if isinstance(message, protocol.ReportMessage):
                outcome.report = message.report
                return True
            if isinstance(message, protocol.Crash):
                outcome.crash = message
                return True
            if isinstance(message, protocol.FileChunk):
                outcome.files.receive(protocol.as_event(message))
            elif isinstance(message, protocol.Environment):
                outcome.environment = outcome.environment or message  # the first: before user code
            elif isinstance(message, protocol.PROGRESS) and on_event is not None:
                _forward(on_event, protocol.as_event(message))
    except TimeoutError:
        return False
    return True


def _forward(on_event: protocol.OnEvent, event: dict) -> None:
    try:
        on_event(event)
    except Cancelled:
        raise  # the client has gone: supervise() kills the job
    except Exception:  # noqa: BLE001 - a broken UI callback must not lose the job's report
        pass
