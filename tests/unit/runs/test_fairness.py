"""The fair queue: round-robin order between clients, per-client caps, and the refusals' words.
A fake clock stands in for time; a gated fake executor stands in for the pool (the seam)."""

from __future__ import annotations

import threading

import pytest
from fake_clock import Clock
from sandbox_support import poll

from playground.contract.errors import LimitError, WarmingUp
from playground.contract.job import Job, Report
from playground.runs.fairness import ClientLimits, FairExecutor, FairQueue


def admitted(queue: FairQueue, tickets) -> list[str]:
    return [name for name, t in tickets if t.admitted]


def test_clients_are_served_in_turn_not_first_come_first_served():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=5), Clock())
    tickets = [
        (n, queue.enter(c)) for n, c in [("a1", "A"), ("a2", "A"), ("a3", "A"), ("b1", "B"), ("c1", "C")]
    ]
    order = []
    for _ in range(5):
        ((name, ticket),) = [(n, t) for n, t in tickets if t.admitted and n not in order]
        order.append(name)
        queue.leave(ticket, 1.0)
    assert order == ["a1", "b1", "c1", "a2", "a3"]


def test_positions_count_the_jobs_ahead_in_round_robin_order():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=5), Clock())
    running = queue.enter("A")
    a2, a3, b1 = queue.enter("A"), queue.enter("A"), queue.enter("B")
    assert running.admitted
    assert [queue.position(t) for t in (b1, a2, a3)] == [0, 1, 2]  # B's first before A's next


def test_one_running_job_per_client_even_with_free_slots():
    queue = FairQueue(ClientLimits(slots=3, queued_per_client=3), Clock())
    a1, a2, b1 = queue.enter("A"), queue.enter("A"), queue.enter("B")
    assert (a1.admitted, a2.admitted, b1.admitted) == (True, False, True)
    queue.leave(a1, 2.0)
    assert a2.admitted


def test_a_clients_own_queue_is_capped_with_a_clear_refusal():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=2), Clock())
    queue.enter("A")  # running
    queue.enter("A"), queue.enter("A")  # waiting: its queue is full
    with pytest.raises(LimitError, match=r"already have 2 run\(s\) waiting \(from another tab\?\)"):
        queue.enter("A")
    assert not queue.enter("B").admitted  # another client still gets in line


def test_runs_per_minute_are_counted_per_client_and_recover():
    clock = Clock()
    queue = FairQueue(ClientLimits(slots=5, runs_per_minute=2, queued_per_client=5), clock)
    for _ in range(2):
        queue.leave(queue.enter("A"), 0.1)
    with pytest.raises(LimitError, match="at most 2 runs a minute per visitor.*try again in 60 s"):
        queue.enter("A")
    queue.enter("B")  # B has its own count
    clock.now += 61
    assert queue.enter("A").admitted


def test_sandbox_seconds_are_charged_so_timeouts_cost_the_client():
    clock = Clock()
    queue = FairQueue(ClientLimits(slots=2, seconds_per_minute=45, queued_per_client=5), clock)
    queue.leave(queue.enter("A"), 30.0)  # a run that hit a 30 s timeout
    queue.leave(queue.enter("A"), 30.0)
    clock.now += 10
    with pytest.raises(LimitError, match=r"used 60 s of sandbox time .*\(at most 45 s .* in 50 s"):
        queue.enter("A")
    assert queue.enter("B").admitted
    clock.now += 51
    assert queue.enter("A").admitted


def test_the_whole_queue_has_a_limit_too():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=1, queue_limit=2), Clock())
    queue.enter("A"), queue.enter("B"), queue.enter("C")  # A runs, B and C wait
    with pytest.raises(LimitError, match="Busy: 2 runs are waiting"):
        queue.enter("D")


def test_check_says_the_refusal_a_run_would_meet_and_queues_nothing():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=1, queue_limit=1), Clock())
    queue.check("A")
    assert queue.stats() == {"waiting": 0, "running": 0}
    running, waiting = queue.enter("A"), queue.enter("B")
    for client in ("B", "C"):  # B's own queue is full; C finds the whole queue full
        with pytest.raises(LimitError) as refused:
            queue.check(client)
        with pytest.raises(LimitError) as entered:
            queue.enter(client)
        assert str(refused.value) == str(entered.value)
    assert queue.stats() == {"waiting": 1, "running": 1}
    queue.leave(running, 1.0)
    queue.check("C")  # B was admitted: room again
    assert waiting.admitted and queue.stats() == {"waiting": 0, "running": 1}


def test_a_refused_or_abandoned_ticket_frees_its_place():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=1), Clock())
    running, waiting = queue.enter("A"), queue.enter("B")
    queue.leave(waiting, 0.0)  # B gave up before its turn
    queue.leave(running, 1.0)
    assert queue.enter("B").admitted


class GatedExecutor:
    """Blocks each job until released, so a test can hold jobs in the executor."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started: list[str] = []

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        self.started.append(job.source)
        self.release.wait(10)
        return Report("2.21.0", "CPU", "ok", None, "", [], [], duration_s=0.5)

    def close(self) -> None:
        pass


def submitters(fair: FairExecutor, jobs: list[tuple[str, str]], events: list[dict]) -> list[threading.Thread]:
    """One thread per (source, client), each submitting that job through the fair executor."""
    return [
        threading.Thread(
            target=fair.submit,
            args=(Job(source=source),),
            kwargs={"client": client, "on_event": events.append},
        )
        for source, client in jobs
    ]


def test_executor_runs_one_job_per_client_and_lets_another_client_through():
    inner = GatedExecutor()
    fair = FairExecutor(inner, ClientLimits(slots=2, queued_per_client=1))
    events: list[dict] = []
    threads = submitters(fair, [("a1", "A"), ("a2", "A"), ("b1", "B")], events)
    for thread in threads:
        thread.start()
    poll(lambda: sorted(inner.started) == ["a1", "b1"])
    assert sorted(inner.started) == ["a1", "b1"]  # A's second run waits for its first
    assert any(e["event"] == "queued" for e in events)
    inner.release.set()
    for thread in threads:
        thread.join(10)
    assert sorted(inner.started) == ["a1", "a2", "b1"]


def test_a_demoted_job_lets_a_short_one_into_its_slot_up_to_the_background_places():
    queue = FairQueue(ClientLimits(slots=1, background=1, queued_per_client=3), Clock())
    a1, b1, c1 = queue.enter("A"), queue.enter("B"), queue.enter("C")
    assert (a1.admitted, b1.admitted) == (True, False)
    queue.demote(a1)  # A's job went on at nice 19
    assert b1.admitted and not c1.admitted  # one background place: B runs beside it, C waits
    queue.demote(b1)
    assert not c1.admitted  # the pool has slots + background workers, no more
    queue.leave(a1, 30.0)
    assert c1.admitted  # A's worker is free: C starts beside demoted B


def test_a_demoted_client_still_runs_one_job_at_a_time():
    queue = FairQueue(ClientLimits(slots=1, background=1, queued_per_client=3), Clock())
    a1, a2 = queue.enter("A"), queue.enter("A")
    queue.demote(a1)
    assert not a2.admitted  # the per-client cap counts demoted jobs too
    assert queue.enter("B").admitted


def test_without_background_places_a_demoted_job_keeps_its_slot():
    queue = FairQueue(ClientLimits(slots=1, background=0), Clock())
    a1, b1 = queue.enter("A"), queue.enter("B")
    queue.demote(a1)
    assert not b1.admitted
    queue.leave(a1, 30.0)
    assert b1.admitted


def test_background_places_follow_the_settings():
    from playground.contract.config import Settings

    assert ClientLimits.from_settings(Settings()).background == 1
    assert ClientLimits.from_settings(Settings(background_workers=0)).background == 0
    assert ClientLimits.from_settings(Settings(demote_after_s=0)).background == 0  # never demoted


class DemotingExecutor(GatedExecutor):
    """Says "demoted" for its first job, as the sandbox's supervisor does after demote_after_s."""

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        if job.source == "long" and on_event is not None:
            on_event({"event": "demoted", "after_s": 5.0})
        return super().submit(job, on_event)


def test_the_executor_lets_a_second_client_in_once_the_first_job_is_demoted():
    inner = DemotingExecutor()
    fair = FairExecutor(inner, ClientLimits(slots=1, background=1))
    events: list[dict] = []
    threads = submitters(fair, [("long", "A"), ("short", "B")], events)
    threads[0].start()
    assert poll(lambda: inner.started == ["long"])
    threads[1].start()
    assert poll(lambda: inner.started == ["long", "short"])  # B did not wait for A's job
    assert {"event": "demoted", "after_s": 5.0} in events  # and the page heard it too
    inner.release.set()
    for thread in threads:
        thread.join(10)


def test_without_the_demotion_the_second_client_waits():
    inner = GatedExecutor()
    fair = FairExecutor(inner, ClientLimits(slots=1, background=1))
    threads = submitters(fair, [("long", "A"), ("short", "B")], [])
    for thread in threads:
        thread.start()
    assert not poll(lambda: len(inner.started) > 1, timeout_s=0.5)
    inner.release.set()
    for thread in threads:
        thread.join(10)
    assert inner.started == ["long", "short"]


class SlowForgingExecutor:
    """Takes 0.3 s of sandbox time and returns a report that claims 0.01 s, as a job can."""

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        threading.Event().wait(0.3)  # the job's own run time
        return Report("2.21.0", "CPU", "ok", None, "", [], [], duration_s=0.01)

    def close(self) -> None:
        pass


def test_billing_is_the_executors_own_clock_not_the_reports():
    fair = FairExecutor(SlowForgingExecutor(), ClientLimits(seconds_per_minute=0.5))
    fair.submit(Job(source="x"), client="A")
    (charge,) = fair.queue._charges["A"]
    assert charge[1] >= 0.3  # it was billed the 0.01 s it claimed
    fair.submit(Job(source="x"), client="A")
    with pytest.raises(LimitError, match="sandbox time"):
        fair.submit(Job(source="x"), client="A")  # 0.6 s used of a 0.5 s budget


class WarmingExecutor:
    """An executor that warms up: `left` seconds of its TensorFlow import still to come (None:
    warm). A job it is given is counted; the gate must keep jobs away until it is warm."""

    def __init__(self, left: float | None) -> None:
        self.left, self.jobs = left, 0

    def warming_s(self) -> float | None:
        return self.left

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        self.jobs += 1
        return Report("2.21.0", "CPU", "ok", None, "", [], [])

    def close(self) -> None:
        pass


def test_no_job_reaches_a_warming_executor_and_the_refusal_says_how_long():
    inner = WarmingExecutor(12.4)
    fair = FairExecutor(inner, ClientLimits())
    with pytest.raises(WarmingUp) as refused:
        fair.submit(Job(source="def f(x):\n    return x\n"), client="a")
    assert inner.jobs == 0
    assert refused.value.retry_after_s == 12.4
    assert "about 12 s" in str(refused.value) and "Your code and settings are kept" in str(refused.value)
    assert fair.queue.billed("a") == [] and not fair.queue._waiting  # refused before the queue

    with pytest.raises(WarmingUp):  # what Run's press asks first, with the same answer
        fair.check("a")
    inner.left = None  # warm: the same job runs
    fair.check("a")
    assert fair.submit(Job(source="def f(x):\n    return x\n"), client="a").status == "ok"
    assert inner.jobs == 1


def test_an_executor_that_does_not_warm_up_is_never_gated():
    fair = FairExecutor(GatedExecutor(), ClientLimits())
    assert fair.warming_s() is None
