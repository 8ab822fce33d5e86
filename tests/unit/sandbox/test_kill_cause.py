"""Why the host stopped a job, in one word for /metrics (playground_sandbox_kills_total{cause}):
read from what the host saw, each case against the report the user gets for it."""

from __future__ import annotations

import signal

import pytest

from playground.contract.job import Report, SandboxInfo
from playground.contract.protocol import Crash
from playground.sandbox.outcome import finish, kill_cause
from playground.sandbox.supervisor import Outcome

LIMITS = SandboxInfo("bubblewrap", {"cpu_s": 5, "memory_mb": 4096, "file_mb": 16, "wall_s": 20})


@pytest.mark.parametrize(
    ("outcome", "cause", "status"),
    [
        (Outcome(report=Report("2.21.0", "CPU", "ok", None, "", [], [])), None, "ok"),
        (Outcome(malformed="not JSON"), "malformed", "killed"),
        (Outcome(timed_out=True), "timeout", "timeout"),
        (Outcome(overflow=True), "output", "killed"),
        (Outcome(crash=Crash("KeyError", "pending")), "crash", "killed"),
        (Outcome(signal=signal.SIGXCPU), "cpu", "timeout"),
        (Outcome(signal=signal.SIGKILL, stderr="Cannot allocate memory"), "memory", "memory"),
        (Outcome(signal=signal.SIGSEGV), "signal", "killed"),
        (Outcome(exit_code=3), "exit", "killed"),
    ],
)
def test_each_way_a_job_ends_has_one_cause_and_the_users_report_agrees(outcome, cause, status):
    assert kill_cause(outcome) == cause
    assert finish(outcome, LIMITS, 20.0).status == status
