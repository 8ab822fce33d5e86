"""Jobs that write their own protocol messages: the user's code runs in the worker's process,
finds the report pipe under /proc/self/fd and says what it likes. The host must decode, bound
and measure everything itself (contract/protocol.py, sandbox/supervisor.py)."""

from __future__ import annotations

import threading
import time

import pytest
from hostile_jobs import EVENT_FLOOD, FORGED_30MB, FORGED_DURATION, NEWLINE_FLOOD, SAY
from sandbox_support import pool, script, timed  # noqa: F401 - pool is a fixture

from playground.contract.errors import Cancelled
from playground.contract.job import Job


def forged(body: str, timeout_s: float = 20.0) -> Job:
    return script(body if body.startswith(SAY) else SAY + body, timeout_s=timeout_s)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class PeakRss:
    """Samples this process's resident memory while a job runs (the server's cost)."""

    def __enter__(self) -> PeakRss:
        self.base = self.peak = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def grown_mb(self) -> float:
        return self.peak - self.base


def test_a_30_mb_report_of_empty_objects_costs_the_server_little(pool):
    body = FORGED_30MB
    with PeakRss() as rss:
        report, wall = timed(pool, forged(body))
    assert report.status == "killed", report.message
    assert "too many events" in report.message or "malformed" in report.message
    assert rss.grown_mb < 50, rss.grown_mb  # it was 1,068 MB
    assert wall < 10


def test_a_deeply_nested_or_mistyped_report_is_a_clear_error(pool):
    for body in (
        'say(b\'{"event": "report", "report": \' + b"[" * 200_000 + b"]" * 200_000 + b"}\\n")\n',
        'report(functions="everything")\n',
    ):
        report, _ = timed(pool, forged(body))
        assert report.status == "killed"
        assert report.message.startswith("The job's report was malformed"), report.message


def test_the_host_cuts_a_forged_report_to_the_output_cap(pool):
    report, _ = timed(pool, forged('report(stdout="y" * (3 << 20))\n'))
    assert report.status == "ok"
    assert len(report.stdout) < (1 << 20) + 100  # the cap is 1 MiB, the job said 3
    assert report.stdout.endswith("[output cut at 1048576 bytes]")


def test_a_newline_flood_through_an_enlarged_pipe_ends_at_the_deadline(pool):
    body = NEWLINE_FLOOD
    started = time.process_time()
    report, wall = timed(pool, forged(body, timeout_s=5))
    host_cpu = time.process_time() - started
    assert report.status in ("timeout", "killed"), report.message
    assert report.duration_s < 5.5, report.duration_s  # it took 13 to 15 s
    assert wall < 8
    assert host_cpu < 5, host_cpu


def test_duration_in_a_report_is_the_supervisors_not_the_jobs(pool):
    report, _ = timed(pool, forged(FORGED_DURATION))
    assert report.status == "ok"
    assert report.duration_s >= 1.5


def test_host_events_written_by_a_job_never_reach_the_caller(pool):
    body = (
        'for kind in ("demoted", "queued", "started", "accepted", "retry"):\n'
        '    say(json.dumps({"event": kind, "after_s": 0, "position": 0}).encode() + b"\\n")\n'
        'say(b\'{"event": "call_finished", "function": "f", "index": 0, "retraced": true, '
        '"reason": "r", "tracing_count": 1, "error": null, "note": "extra"}\\n\')\n'
    )
    events: list[dict] = []
    report = pool.submit(forged(body), events.append)
    assert report.status == "ok"
    kinds = [e["event"] for e in events]
    assert kinds.count("started") == 1  # the pool's own, not the job's
    assert not {"demoted", "queued", "accepted", "retry"} & set(kinds), kinds
    finished = [e for e in events if e["event"] == "call_finished"]
    assert finished == [
        {
            "event": "call_finished",
            "function": "f",
            "index": 0,
            "retraced": True,
            "reason": "r",
            "tracing_count": 1,
            "error": None,
        }
    ]


def test_an_event_flood_is_bounded_for_the_caller(pool):
    body = EVENT_FLOOD
    events: list[dict] = []
    started = time.monotonic()
    report = pool.submit(forged(body), events.append)
    assert report.status == "ok" and report.stdout == "done"
    assert len(events) < 5_100, len(events)  # the host decodes and forwards 5,000
    assert time.monotonic() - started < 15


def test_a_client_that_leaves_stops_its_job(pool):
    """The API's stream raises Cancelled from on_event once its client has gone."""

    def gone(event: dict) -> None:
        if event["event"] == "call_finished":
            raise Cancelled("the client closed its stream")

    source = (
        "import tensorflow as tf, time\n@tf.function\ndef f(x):\n    return x + 1\n"
        "f(tf.constant(1))\ntime.sleep(60)\n"
    )
    started = time.monotonic()
    with pytest.raises(Cancelled):
        pool.submit(script(source), gone)
    assert time.monotonic() - started < 15  # not the 60 s the job asked for
    assert pool.submit(script("print('next')\n")).stdout == "next\n"  # the pool goes on


def test_the_host_measures_cpu_and_wall_itself(pool):
    body = (
        "import time\nend = time.process_time() + 1.0\n"
        "while time.process_time() < end:\n    pass\n"
        "report(duration_s=0.0, sandbox={'isolation': 'none', 'cpu_s': 0.0, 'wall_s': 0.0})\n"
    )
    report = pool.submit(forged(body))
    assert report.status == "ok"
    assert report.sandbox.isolation == pool.isolation  # the host's, not the job's
    assert report.sandbox.cpu_s >= 0.9, report.sandbox
    assert report.duration_s >= 1.0  # the supervisor's clock
