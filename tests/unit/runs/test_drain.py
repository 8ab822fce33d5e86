"""The fair executor's drain (runs/drain.py calls it on SIGTERM): new Runs refused at once with a
sentence, a Run in flight that finishes within the bound answered, one still running at the
bound stopped through its control and told that the server restarted, one still waiting told
the same; and the API's stream stops its job through the same control when its client leaves."""

from __future__ import annotations

import threading

import pytest

from playground.contract.errors import Restarting
from playground.contract.job import Job, Report
from playground.runs.fairness import ClientLimits, FairExecutor

OK = Report("2.21.0", "CPU", "ok", None, "", [], [])


class Held:
    """A job runs until its release event is set, or until its control stops it (then it
    ends as a killed job, as the pool's does)."""

    def __init__(self) -> None:
        self.started = threading.Semaphore(0)
        self.release: dict[str, threading.Event] = {}

    def submit(self, job: Job, on_event=None, control=None) -> Report:
        release = self.release.setdefault(job.source, threading.Event())
        self.started.release()
        while not release.wait(0.01):
            if control is not None and control.stop.is_set():
                return Report("2.21.0", "CPU", "killed", None, "", [], [])
        return OK

    def close(self) -> None:
        pass


def runs(executor: FairExecutor, sources: dict[str, str]) -> tuple[dict, list[threading.Thread]]:
    answers: dict[str, object] = {}

    def one(name: str, client: str) -> None:
        try:
            answers[name] = executor.submit(Job(source=sources[name]), client=client)
        except Exception as error:  # noqa: BLE001 - the answer under test
            answers[name] = error

    threads = [threading.Thread(target=one, args=(n, f"client-{n}")) for n in sources]
    for thread in threads:
        thread.start()
    return answers, threads


def test_a_drain_refuses_new_runs_finishes_one_in_flight_and_tells_the_rest():
    held = Held()
    executor = FairExecutor(held, ClientLimits(slots=2, running_per_client=1))
    answers, threads = runs(executor, {"short": "a = 1\n", "long": "b = 2\n", "waits": "c = 3\n"})
    held.started.acquire(timeout=5)
    held.started.acquire(timeout=5)  # two hold the slots, the third waits for one
    drained: list[int] = []
    drainer = threading.Thread(target=lambda: drained.append(executor.drain(bound_s=0.5)))
    drainer.start()
    with pytest.raises(Restarting, match="restarting"):
        while True:  # refused from the drain's first moment
            executor.check("someone")
    waiting = next(source for source in ("a = 1\n", "b = 2\n", "c = 3\n") if source not in held.release)
    finished = next(source for source in held.release if source != waiting)
    held.release[finished].set()  # one Run in flight finishes within the bound
    drainer.join(10)
    for thread in threads:
        thread.join(10)
    by_source = {"a = 1\n": "short", "b = 2\n": "long", "c = 3\n": "waits"}
    assert answers[by_source[finished]] is OK
    cut = [name for name, answer in answers.items() if answer is not OK]
    assert len(cut) == 2 and drained == [2], (answers, drained)
    for name in cut:  # the one still running and the one it let start or still waiting
        assert isinstance(answers[name], Restarting), answers
        assert "restarted before your Run finished" in str(answers[name])
    assert executor.in_flight() == 0


def test_an_idle_drain_returns_at_once_and_cuts_nothing():
    executor = FairExecutor(Held(), ClientLimits())
    assert executor.drain(bound_s=30) == 0
    with pytest.raises(Restarting):
        executor.admit()
