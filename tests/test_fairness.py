"""The fair queue: round-robin order between clients, per-client caps, and the refusals' words.
A fake clock stands in for time; a gated fake executor stands in for the pool (the seam)."""
from __future__ import annotations

import threading

import pytest

from playground.errors import LimitError
from playground.fairness import ClientLimits, FairExecutor, FairQueue
from playground.job import Job, Report


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def admitted(queue: FairQueue, tickets) -> list[str]:
    return [name for name, t in tickets if t.admitted]


def test_clients_are_served_in_turn_not_first_come_first_served():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=5), Clock())
    tickets = [(n, queue.enter(c)) for n, c in
               [("a1", "A"), ("a2", "A"), ("a3", "A"), ("b1", "B"), ("c1", "C")]]
    order = []
    for _ in range(5):
        (name, ticket), = [(n, t) for n, t in tickets if t.admitted and n not in order]
        order.append(name)
        queue.leave(ticket, 1.0)
    assert order == ["a1", "b1", "c1", "a2", "a3"]


def test_positions_count_the_jobs_ahead_in_round_robin_order():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=5), Clock())
    running = queue.enter("A")
    a2, a3, b1 = queue.enter("A"), queue.enter("A"), queue.enter("B")
    assert running.admitted
    assert [queue.position(t) for t in (b1, a2, a3)] == [0, 1, 2]   # B's first before A's next


def test_one_running_job_per_client_even_with_free_slots():
    queue = FairQueue(ClientLimits(slots=3, queued_per_client=3), Clock())
    a1, a2, b1 = queue.enter("A"), queue.enter("A"), queue.enter("B")
    assert (a1.admitted, a2.admitted, b1.admitted) == (True, False, True)
    queue.leave(a1, 2.0)
    assert a2.admitted


def test_a_clients_own_queue_is_capped_with_a_clear_refusal():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=2), Clock())
    queue.enter("A")                       # running
    queue.enter("A"), queue.enter("A")     # waiting: its queue is full
    with pytest.raises(LimitError, match=r"already have 2 run\(s\) waiting \(from another tab\?\)"):
        queue.enter("A")
    assert not queue.enter("B").admitted   # another client still gets in line


def test_runs_per_minute_are_counted_per_client_and_recover():
    clock = Clock()
    queue = FairQueue(ClientLimits(slots=5, runs_per_minute=2, queued_per_client=5), clock)
    for _ in range(2):
        queue.leave(queue.enter("A"), 0.1)
    with pytest.raises(LimitError, match="at most 2 runs a minute per visitor.*try again in 60 s"):
        queue.enter("A")
    queue.enter("B")                       # B has its own count
    clock.now += 61
    assert queue.enter("A").admitted


def test_sandbox_seconds_are_charged_so_timeouts_cost_the_client():
    clock = Clock()
    queue = FairQueue(ClientLimits(slots=2, seconds_per_minute=45, queued_per_client=5), clock)
    queue.leave(queue.enter("A"), 30.0)    # a run that hit a 30 s timeout
    queue.leave(queue.enter("A"), 30.0)
    clock.now += 10
    with pytest.raises(LimitError, match=r"used 60 s of sandbox time .*\(at most 45 s .* in 50 s"):
        queue.enter("A")
    assert queue.enter("B").admitted
    clock.now += 51
    assert queue.enter("A").admitted


def test_the_whole_queue_has_a_limit_too():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=1, queue_limit=2), Clock())
    queue.enter("A"), queue.enter("B"), queue.enter("C")    # A runs, B and C wait
    with pytest.raises(LimitError, match="Busy: 2 runs are waiting"):
        queue.enter("D")


def test_a_refused_or_abandoned_ticket_frees_its_place():
    queue = FairQueue(ClientLimits(slots=1, queued_per_client=1), Clock())
    running, waiting = queue.enter("A"), queue.enter("B")
    queue.leave(waiting, 0.0)              # B gave up before its turn
    queue.leave(running, 1.0)
    assert queue.enter("B").admitted


class GatedExecutor:
    """Blocks each job until released, so a test can hold jobs in the executor."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started: list[str] = []

    def submit(self, job: Job, on_event=None) -> Report:
        self.started.append(job.source)
        self.release.wait(10)
        return Report("2.21.0", "CPU", "ok", None, "", [], [], duration_s=0.5)

    def close(self) -> None:
        pass


def test_executor_runs_one_job_per_client_and_lets_another_client_through():
    inner = GatedExecutor()
    fair = FairExecutor(inner, ClientLimits(slots=2, queued_per_client=1))
    events: list[dict] = []
    threads = [threading.Thread(target=fair.submit, args=(Job(source=s),),
                                kwargs={"client": c, "on_event": events.append})
               for s, c in [("a1", "A"), ("a2", "A"), ("b1", "B")]]
    for thread in threads:
        thread.start()
    deadline = threading.Event()
    while sorted(inner.started) != ["a1", "b1"] and not deadline.wait(0.05):
        pass
    assert sorted(inner.started) == ["a1", "b1"]        # A's second run waits for its first
    assert any(e["event"] == "queued" for e in events)
    inner.release.set()
    for thread in threads:
        thread.join(10)
    assert sorted(inner.started) == ["a1", "a2", "b1"]

