"""A compare run is two jobs of one client behind the real fair queue: under the default per-client
limit (one running job) the sides run one after the other and both finish; with two allowed,
they run at once."""

from __future__ import annotations

import threading

from playground.contract.config import Settings
from playground.contract.job import Job, Report
from playground.runs.fairness import ClientLimits, FairExecutor
from playground.ui import compare_run


class CountingExecutor:
    """Stands in for the sandbox pool (not under test): records the order and overlap of jobs,
    and, given a barrier, holds each job until the other side's arrives."""

    def __init__(self, barrier: threading.Barrier | None = None) -> None:
        self.lock = threading.Lock()
        self.running = self.most = 0
        self.order: list[bool] = []
        self.barrier = barrier

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.order.append(job.reduce_retracing)
        if self.barrier is not None:
            self.barrier.wait(timeout=10)
        with self.lock:
            self.running -= 1
        return Report("2.21.0", "CPU", "ok", None, "", [], [], duration_s=0.1)

    def close(self) -> None:
        pass


class Events:
    def __init__(self) -> None:
        self.seen: list[dict] = []

    def on_event(self, event: dict) -> None:
        self.seen.append(event)


SIDES = (Job(source="x = 1\n"), Job(source="x = 1\n", reduce_retracing=True))


def test_default_limits_run_the_sides_one_after_the_other_and_both_finish():
    inner = CountingExecutor()
    fair = FairExecutor(inner, ClientLimits.from_settings(Settings()))
    assert fair.queue.limits.running_per_client == 1 and not compare_run.concurrent(fair)
    a, b = compare_run.submit_both(fair, *SIDES, "client", Events(), Events())
    assert (a.status, b.status) == ("ok", "ok")
    assert inner.order == [False, True] and inner.most == 1


def test_two_running_jobs_per_client_run_the_sides_at_once():
    inner = CountingExecutor(threading.Barrier(2))  # breaks (and raises) unless both overlap
    fair = FairExecutor(inner, ClientLimits(running_per_client=2))
    events_a, events_b = Events(), Events()
    a, b = compare_run.submit_both(fair, *SIDES, "client", events_a, events_b)
    assert (a.status, b.status) == ("ok", "ok") and inner.most == 2
    assert sorted(inner.order) == [False, True]
