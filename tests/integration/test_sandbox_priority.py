"""CPU priority in the sandbox: a job still running after demote_after_s goes on at nice 19,
every thread of it, while a short job keeps normal priority (the job reads its own niceness, so
this is what the kernel applies); a zygote imports TF at WARMING_NICE, then forks at normal."""

from __future__ import annotations

import dataclasses
import os

import pytest
from sandbox_support import SETTINGS, poll, script

from playground.sandbox import WorkerPool
from playground.sandbox.forked import Zygote
from playground.sandbox.leftovers import processes_of
from playground.sandbox.outcome import demoted_note
from playground.sandbox.process import WARMING_NICE, SandboxConfig

READ_NICENESS = """import os, threading, time
seen = {}
def later():
    time.sleep(WAIT_S)
    seen["thread"] = os.getpriority(os.PRIO_PROCESS, 0)   # this thread's own niceness
helper = threading.Thread(target=later)
helper.start()                      # started before any demotion could happen
time.sleep(WAIT_S)
helper.join()
print("main", os.getpriority(os.PRIO_PROCESS, 0), "thread", seen["thread"])
"""


@pytest.fixture(scope="module", params=["off", "on"], ids=["fresh-workers", "forked-workers"])
def pool(request):
    settings = dataclasses.replace(SETTINGS, demote_after_s=1.0, fork_workers=request.param)
    with WorkerPool(settings) as p:
        assert p.wait_ready(), "the sandbox pool did not warm up"
        yield p


def run(pool, wait_s: float, on_event=None):
    return pool.submit(script(READ_NICENESS.replace("WAIT_S", repr(wait_s))), on_event)


def test_a_long_job_is_demoted_with_all_its_threads(pool):
    events: list[dict] = []
    report = run(pool, 2.5, events.append)
    assert report.status == "ok", report.message
    assert report.stdout.split() == ["main", "19", "thread", "19"]
    assert demoted_note(1.0) in report.sandbox.notes
    assert {"event": "demoted", "after_s": 1.0} in events  # what the fair queue acts on


def test_a_short_job_keeps_normal_priority(pool):
    events: list[dict] = []
    report = run(pool, 0.1, events.append)
    assert report.status == "ok", report.message
    assert not any(e.get("event") == "demoted" for e in events)
    assert report.stdout.split() == ["main", "0", "thread", "0"]
    assert not any("nice 19" in note for note in report.sandbox.notes)


def test_the_next_job_after_a_demoted_one_starts_at_normal_priority(pool):
    assert run(pool, 2.5).stdout.split()[1] == "19"
    assert run(pool, 0.1).stdout.split() == ["main", "0", "thread", "0"]


def test_a_zygote_imports_at_warming_nice_then_forks_at_normal_priority():
    config = SandboxConfig.from_settings(dataclasses.replace(SETTINGS, fork_workers="on"))
    if config.isolation != "bubblewrap":
        pytest.skip("zygotes need bubblewrap namespaces")
    zygote = Zygote(config)
    try:

        def niceness() -> set[int]:
            return {os.getpriority(os.PRIO_PROCESS, pid) for pid in processes_of(zygote.uid)}

        assert poll(lambda: bool(processes_of(zygote.uid)))
        assert niceness() == {WARMING_NICE}  # while it imports TensorFlow
        zygote.wait_ready(120.0)
        assert niceness() == {0}
    finally:
        zygote.close()
