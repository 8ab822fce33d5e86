"""The hosted-service plumbing: a dead executor is rebuilt, and run logs never hold user code."""

from __future__ import annotations

import datetime
import json
import logging
import time

import pytest

from playground.contract.errors import LimitError, SandboxError, WarmingUp
from playground.contract.job import ExecutorInfo, Job, Report, SandboxInfo
from playground.runs.service import RestartingExecutor, log_run, session_tag

SECRET_SOURCE = "API_KEY = 'sk-do-not-log'\ndef f(x):\n    return x\n"


def report(status="ok"):
    return Report(
        "2.21.0",
        "CPU",
        status,
        None,
        "",
        [],
        [],
        sandbox=SandboxInfo("bubblewrap"),
        executor=ExecutorInfo("local", "host"),
    )


class Pool:
    """Stands in for the worker pool at the executor seam: the wrapper is what is tested."""

    made = 0

    def __init__(self, broken=False):
        Pool.made += 1
        self.broken, self.closed, self.jobs = broken, False, []

    def submit(self, job, on_event=None, control=None):
        if self.broken:
            raise SandboxError("the sandbox cannot start workers: bwrap failed")
        self.jobs.append(job)
        return report()

    def close(self):
        self.closed = True


def test_a_dead_pool_is_replaced_and_the_job_still_runs():
    pools = [Pool(broken=True), Pool()]
    executor = RestartingExecutor(lambda: pools.pop(0))
    first = executor._current()
    assert executor.submit(Job("x = 1\n")).status == "ok"
    assert first.closed and executor.restarts == 1
    assert executor.submit(Job("x = 2\n")).status == "ok"  # the new pool stays
    assert executor.restarts == 1


def test_user_limits_are_not_mistaken_for_a_dead_pool():
    class Busy(Pool):
        def submit(self, job, on_event=None, control=None):
            raise LimitError("Busy: 16 jobs queued; try again in ~30 s")

    executor = RestartingExecutor(Busy)
    with pytest.raises(LimitError, match="Busy"):
        executor.submit(Job("x = 1\n"))
    assert executor.restarts == 0


def test_run_log_line_has_the_facts_and_no_code(caplog):
    caplog.set_level(logging.INFO, logger="playground.runs")
    line = json.loads(log_run("session-123", time.monotonic() - 0.5, report(), client="198.51.100.7"))
    assert line["session"] == session_tag("session-123") and 0.5 <= line["duration_s"] < 1.0
    assert line["client"] == session_tag("198.51.100.7") and len(line["request"]) == 12
    assert (line["outcome"], line["isolation"], line["traces"], line["executor"]) == (
        "ok",
        "bubblewrap",
        0,
        "local",
    )
    assert datetime.datetime.fromisoformat(line["time"]).tzinfo is not None
    refused = json.loads(log_run("session-123", time.monotonic(), error=LimitError("busy")))
    assert (refused["outcome"], refused["reason"]) == ("refused", "limit")
    assert json.loads(log_run("s", time.monotonic(), error=WarmingUp("soon")))["reason"] == "warming"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "session-123" not in logged and "sk-do-not-log" not in logged and "198.51.100.7" not in logged
    assert len(session_tag("a")) == 10 and session_tag("a") != session_tag("b")
