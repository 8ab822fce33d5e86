"""Decides the final status and message of a sandboxed run from what the worker left behind."""

from __future__ import annotations

import dataclasses
import signal
import socket

from ..contract import i18n
from ..contract.config import Settings
from ..contract.i18n import _
from ..contract.job import ErrorInfo, ExecutorInfo, Report, SandboxInfo
from ..contract.protocol import Environment
from .supervisor import Outcome

MEMORY_EVIDENCE = (
    "MemoryError",
    "bad_alloc",
    "Cannot allocate memory",
    "ResourceExhausted",
    "out of memory",
    "OOM",
)
NETWORK_ERRORS = ("ConnectionRefusedError", "gaierror", "ConnectionError", "TimeoutError")
# What a refused lock looks like (seccomp.py): SQLite's file locking, and Python's fcntl calls
# ending in EPERM (the traceback names the call).
LOCK_TEXT = ("access permission denied",)
LOCK_CALLS = ("flock(", "lockf(")
NETWORK_TEXT = (
    "Network is unreachable",
    "Connection refused",
    "Name or service not known",
    "Temporary failure in name resolution",
)


def kill_cause(outcome: Outcome) -> str | None:
    """Why the host stopped a job or found it dead, from what the host saw (never the worker's
    report): /metrics counts it, and finish words it for the user. None: the job reported."""
    if outcome.oom_killed:  # before a report: a job whose processes were killed is over
        return "memory"
    if outcome.report is not None:
        return None
    if outcome.malformed:
        return "malformed"
    if outcome.timed_out:
        return "timeout"
    if outcome.overflow:
        return "output"
    if outcome.crash is not None:
        return "crash"
    if outcome.fault is not None:
        return "sandbox"
    if outcome.signal == signal.SIGXCPU:
        return "cpu"
    if any(word in outcome.stderr for word in MEMORY_EVIDENCE):
        return "memory"
    return "signal" if outcome.signal is not None else "exit"


def finish(outcome: Outcome, sandbox: SandboxInfo, timeout_s: float, language: str = "en") -> Report:
    """Every run ends in a Report with a clear status, even when the worker left none; its
    messages in the job's language (this runs on the pool's thread, not the page's)."""
    with i18n.using(language):
        return _finish(outcome, sandbox, timeout_s)


def _finish(outcome: Outcome, sandbox: SandboxInfo, timeout_s: float) -> Report:
    limits = sandbox.limits
    cause = kill_cause(outcome)
    if cause is None:
        assert outcome.report is not None  # kill_cause: None only for a job that reported
        report = _explain(_bounded(outcome.report, limits), limits)
    else:
        report = _stopped(cause, outcome, limits, timeout_s)
    if outcome.demoted_after_s is not None:
        sandbox = dataclasses.replace(sandbox, notes=sandbox.notes + [demoted_note(outcome.demoted_after_s)])
    sandbox = dataclasses.replace(sandbox, cpu_s=outcome.cpu_s, memory_peak_mb=outcome.memory_peak_mb)
    executor = ExecutorInfo(kind="local", node=socket.gethostname())
    # The duration is the supervisor's measurement, whatever the report said.
    return dataclasses.replace(report, sandbox=sandbox, executor=executor, duration_s=outcome.wall_s)


def _bounded(report: Report, limits: dict) -> Report:
    """The host's own output cap on what the job printed (the engine's cap is the job's to
    skip): the script's output, the module-level code's and each call's, cut to `output_bytes`
    characters; a count below zero, which no run makes, is dropped; and no saved trace-mode
    document (`Report.trace`), which only a file opened in the page may carry: a job that sends
    one is lying about where it ran."""
    cap = int(limits.get("output_bytes") or Settings.output_cap_bytes)
    note = "\n" + _("[output cut at {n} bytes]").format(n=cap)

    def cut(text: str) -> str:
        return text if len(text) <= cap else text[:cap] + note

    functions = [
        dataclasses.replace(f, calls=[dataclasses.replace(c, stdout=cut(c.stdout)) for c in f.calls])
        for f in report.functions
    ]
    module = report.module
    if module is not None:
        module = dataclasses.replace(
            module,
            stdout=cut(module.stdout),
            calls=_count(module.calls),
            traces=_count(module.traces),
        )
    return dataclasses.replace(
        report, stdout=cut(report.stdout), functions=functions, module=module, trace=None
    )


def _count(n: int | None) -> int | None:
    return n if n is None or n >= 0 else None


def demoted_note(after_s: float) -> str:
    return _(
        "After {s:g} s this job went on at the lowest CPU priority (nice 19), so shorter "
        "runs went first; timings taken after that are slower on a busy machine."
    ).format(s=after_s)


def _explain(report: Report, limits: dict) -> Report:
    """Rewords resource and network failures the engine reported as plain errors."""
    error = report.error
    if report.status == "memory":
        detail = f"{error.type}: {error.message.splitlines()[0][:200]}" if error else ""
        return dataclasses.replace(
            report,
            message=(
                _("Memory limit: could not allocate that much (limit {limit} MiB per job).").format(
                    limit=limits["memory_mb"]
                )
                + f" {detail}"
            ).strip(),
        )
    if error is not None and (error.type in NETWORK_ERRORS or any(t in error.message for t in NETWORK_TEXT)):
        return dataclasses.replace(
            report,
            message=(
                _("Network access is disabled in the playground ({error})").format(
                    error=f"{error.type}: {error.message.splitlines()[0][:160]}"
                )
            ),
        )
    if error is not None and "File too large" in error.message:
        return dataclasses.replace(
            report,
            message=(
                _("File limit: a file may grow to {limit} MiB ({message})").format(
                    limit=limits["file_mb"], message=report.message
                )
            ),
        )
    if error is not None and (
        any(text in error.message for text in LOCK_TEXT)
        or (error.type == "PermissionError" and any(call in error.traceback for call in LOCK_CALLS))
    ):
        return dataclasses.replace(
            report,
            message=_(
                "File locks are refused in the playground: a lock on a file is a signal one "
                "visitor's job could send another's. SQLite works on `:memory:` or on "
                "`file:name.db?nolock=1` (with `uri=True`). ({message})"
            ).format(message=report.message),
        )
    return report


def _stopped(cause: str, outcome: Outcome, limits: dict, timeout_s: float) -> Report:
    """No usable report came back: the host's reason (kill_cause), in the user's words."""
    if cause == "malformed":
        return _empty(
            "killed",
            _("The job's report was malformed ({problem}); nothing it said was shown.").format(
                problem=outcome.malformed[:200]
            ),
            outcome,
        )
    if cause == "timeout":
        return _empty(
            "timeout", _("Time limit: stopped after {seconds} s").format(seconds=f"{timeout_s:g}"), outcome
        )
    if cause == "output":
        return _empty("killed", _("Output limit: the job sent too many events; stopped"), outcome)
    if cause == "crash":
        assert outcome.crash is not None
        crash = outcome.crash
        return _empty(
            "killed",
            _("The worker failed: {error}").format(error=f"{crash.type[:100]}: {crash.message[:300]}"),
            outcome,
        )
    if cause == "sandbox":
        return _empty(
            "killed",
            _(
                "The sandbox failed: a process of the sandbox that served your job (`{part}`) "
                "ended from outside it. Your code was not the cause; run it again."
            ).format(part=outcome.fault),
            outcome,
        )
    if cause == "cpu":
        return _empty(
            "timeout",
            _("CPU limit: stopped after {seconds} s of CPU time").format(seconds=limits["cpu_s"]),
            outcome,
        )
    if cause == "memory" and outcome.oom_killed:
        return _empty(
            "memory",
            _(
                "Memory limit: the job's processes together passed {limit} MiB, the limit per job; "
                "the kernel stopped them"
            ).format(limit=limits["memory_mb"]),
            outcome,
        )
    if cause == "memory":
        return _empty(
            "memory",
            _(
                "Memory limit: could not allocate memory (limit {limit} MiB per job); the worker was stopped"
            ).format(limit=limits["memory_mb"]),
            outcome,
        )
    if cause == "signal":
        sig = outcome.signal
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        return _empty("killed", _("Killed: the job's process ended by {signal}").format(signal=name), outcome)
    return _empty(
        "killed",
        _("Killed: the job ended its worker (exit status {status}) before it reported").format(
            status=outcome.exit_code
        ),
        outcome,
    )


def _empty(status: str, message: str, outcome: Outcome) -> Report:
    """A run that left no report still says where it ran: the worker said so before the
    user's code started."""
    tail = outcome.stderr[-2000:] if outcome.stderr else ""
    known = outcome.environment or Environment()
    environment = known.environment
    return Report(
        tensorflow_version=known.tensorflow_version,
        device=known.device,
        status=status,  # type: ignore[arg-type]
        error=ErrorInfo(type=status.capitalize(), message=message),
        stdout=tail,
        warnings=[],
        functions=[],
        message=message,
        duration_s=outcome.wall_s,
        environment=environment if isinstance(environment, dict) else {},
    )


def sandbox_info(
    isolation: str, limits: dict, notes: tuple[str, ...], extra: list[str] | None = None
) -> SandboxInfo:
    return SandboxInfo(isolation=isolation, limits=dict(limits), notes=list(notes) + (extra or []))
