"""Faults of the sandbox injected under steady load (issue 55), one after another.

Several clients submit a short TensorFlow job to one shared pool, back to back, the whole
time. A victim job runs beside them, and its sandbox is hurt from outside: its keeper killed,
its zygote killed, its zygote frozen (SIGSTOP), the warm workers killed while idle, and a job
of 24 processes of 256 MiB (the job's own fault: its cgroup must stop it alone). Printed per
fault: the victim's answer and how long after its start (against its limit + 2 s), what the
other clients saw meanwhile, how long until the next client job succeeded, and the pool's
counters (the numbers /metrics exposes). At the end: what was left behind (processes of the
sandbox's uids, job cgroups, job folders) once the pool closed.

Targets (issue 55): every answer within its limit + 2 s, with a fault-specific sentence; no
other client's job affected; the next job ok within 10 s; nothing left.

Run (root, bubblewrap): /opt/tf-playground/venv/bin/python bench/bench_faults.py [--clients 3]
"""

from __future__ import annotations

import argparse
import collections
import datetime
import os
import platform
import signal
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from playground.contract.config import Settings  # noqa: E402
from playground.contract.job import Job, Report  # noqa: E402
from playground.contract.job_control import JobControl  # noqa: E402
from playground.sandbox import WorkerPool, layout  # noqa: E402
from playground.sandbox.leftovers import host_pid, processes_of  # noqa: E402

CLIENT_JOB = Job(
    source="import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x * 2 + 1\n",
    function="f",
    calls=("float32[3]",),
)
SLEEPER = "import time\ntime.sleep(10**6)\n"
MEMORY_HOG = """
import os, time
for _ in range(24):
    if os.fork() == 0:
        block = bytearray(256 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(30)
        os._exit(0)
time.sleep(8)
print('all held')
"""


class Clients:
    """`count` threads submitting CLIENT_JOB back to back; every answer kept with its time."""

    def __init__(self, pool: WorkerPool, count: int) -> None:
        self.pool = pool
        self.answers: list[tuple[float, float, str, str]] = []  # (ended, wall, status, message)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._client, daemon=True) for _ in range(count)]
        for thread in self.threads:
            thread.start()

    def _client(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                report = self.pool.submit(CLIENT_JOB)
                answer = (time.monotonic(), time.monotonic() - started, str(report.status), report.message)
            except Exception as error:  # noqa: BLE001 - a refusal is an answer too
                answer = (time.monotonic(), time.monotonic() - started, type(error).__name__, str(error))
            with self._lock:
                self.answers.append(answer)

    def between(self, start: float, end: float) -> list[tuple]:
        with self._lock:
            return [a for a in self.answers if start <= a[0] <= end]

    def first_ok_after(self, moment: float, timeout_s: float = 30.0) -> float | None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                ok = [a[0] for a in self.answers if a[0] > moment and a[2] == "ok"]
            if ok:
                return min(ok) - moment
            time.sleep(0.05)
        return None

    def stop(self) -> None:
        self._stop.set()
        for thread in self.threads:
            thread.join(60)


class Victim:
    def __init__(self, pool: WorkerPool, source: str, timeout_s: float) -> None:
        self.control, self.timeout_s = JobControl(), timeout_s
        self.report: Report | None = None
        self.started, self.ended = time.monotonic(), 0.0
        self.thread = threading.Thread(target=self._run, args=(pool, source), daemon=True)
        self.thread.start()

    def _run(self, pool: WorkerPool, source: str) -> None:
        self.report = pool.submit(Job(source=source, timeout_s=self.timeout_s), control=self.control)
        self.ended = time.monotonic()

    def worker(self, pool: WorkerPool):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for zygote in pool._zygotes.running() if pool._zygotes else ():
                if zygote.uid == self.control.uid and zygote.child is not None and zygote.child.keeper:
                    return zygote.child
            time.sleep(0.02)
        raise RuntimeError("the victim job never started")


def kill_keeper(worker) -> None:
    os.kill(host_pid(worker.zygote.pid_namespace, worker.keeper) or 0, signal.SIGKILL)


def kill_zygote(worker) -> None:
    os.kill(worker.zygote.host_pid() or 0, signal.SIGKILL)


def freeze_zygote(worker) -> None:
    os.kill(worker.zygote.host_pid() or 0, signal.SIGSTOP)


def fault(pool: WorkerPool, clients: Clients, name: str, source: str, limit_s: float, inject) -> dict:
    victim = Victim(pool, source, limit_s)
    worker = victim.worker(pool)
    time.sleep(0.5)  # its code is running
    injected = time.monotonic()
    if inject is not None:
        inject(worker)
    victim.thread.join(limit_s + 30)
    report = victim.report
    recovered = clients.first_ok_after(victim.ended or time.monotonic())
    seen = clients.between(injected, time.monotonic())
    hurt = [a for a in seen if a[2] != "ok"]
    return {
        "fault": name,
        "victim": f"{report.status}: {report.message[:90]}" if report else "no answer",
        "answered_s": (victim.ended - victim.started) if report else None,
        "limit_s": limit_s,
        "clients": f"{len(seen) - len(hurt)} ok, {len(hurt)} not"
        + (f" ({hurt[0][2]}: {hurt[0][3][:60]})" if hurt else ""),
        "next_ok_s": recovered,
    }


def kill_idle(pool: WorkerPool, clients: Clients) -> dict:
    pool.wait_ready(1, timeout_s=30)  # under load, one warm worker at least
    injected = time.monotonic()
    killed = 0
    for idle in list(pool._ready):
        init = host_pid(idle.pid_namespace, 1)
        if init:
            os.kill(init, signal.SIGKILL)
            killed += 1
    time.sleep(3)
    seen = clients.between(injected, time.monotonic())
    hurt = [a for a in seen if a[2] != "ok"]
    return {
        "fault": f"{killed} idle warm worker(s) killed",
        "victim": "-",
        "answered_s": None,
        "limit_s": None,
        "clients": f"{len(seen) - len(hurt)} ok, {len(hurt)} not"
        + (f" ({hurt[0][2]}: {hurt[0][3][:60]})" if hurt else ""),
        "next_ok_s": clients.first_ok_after(injected),
    }


def leftovers(pool: WorkerPool, wait_s: float = 10.0) -> dict:
    """What is left once the pool has closed, given `wait_s` to finish tearing down."""
    uids = range(layout.FIRST_UID, layout.FIRST_UID + layout.UID_COUNT)
    closed = time.monotonic()
    while True:
        processes = sum(len(processes_of(uid)) for uid in uids)
        groups = []
        if pool.config.cgroups is not None:
            parents = pool.config.cgroups.parents.values()
            groups = [p.name for parent in parents for p in parent.iterdir() if p.is_dir()]
        folders = [name for name in os.listdir(layout.base_dir()) if name.startswith("w")]
        if not (processes or groups or folders) or time.monotonic() - closed > wait_s:
            break
        time.sleep(0.1)
    return {
        "processes": processes,
        "job cgroups": len(groups),
        "job folders": len(folders),
        "after_s": round(time.monotonic() - closed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=3)
    args = parser.parse_args()
    settings = Settings(pool_size=args.clients + 1, queue_limit=64, timeout_s=30.0)
    pool = WorkerPool(settings)
    if not pool.wait_ready(timeout_s=180):
        sys.exit("the sandbox pool did not warm up")
    if pool._zygotes is None:
        sys.exit("workers are not forked from zygotes here: the keeper and zygote faults need them")
    print(
        f"bench_faults: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"{platform.node()}, {os.cpu_count()} CPUs; {args.clients} clients, pool of {settings.pool_size}; "
        f"{'; '.join(pool.config.notes)}"
    )
    clients = Clients(pool, args.clients)
    time.sleep(3)  # steady state
    rows = [
        fault(pool, clients, "keeper killed", SLEEPER, 10.0, kill_keeper),
        fault(pool, clients, "zygote killed", SLEEPER, 10.0, kill_zygote),
        fault(pool, clients, "zygote frozen", SLEEPER, 4.0, freeze_zygote),
        kill_idle(pool, clients),
        fault(pool, clients, "job over its memory (24 x 256 MiB)", MEMORY_HOG, 20.0, None),
    ]
    clients.stop()
    counts = collections.Counter(a[2] for a in clients.answers)
    stats = pool.stats()[0]
    pool.close()
    print()
    print(
        "| fault | the victim's answer | answered after (limit + 2 s) | other clients meanwhile | next client job ok after |"
    )
    print("|---|---|---|---|---|")
    for row in rows:
        answered = (
            "-" if row["answered_s"] is None else f"{row['answered_s']:.2f} s ({row['limit_s'] + 2:g} s)"
        )
        nxt = "none in 30 s" if row["next_ok_s"] is None else f"{row['next_ok_s']:.2f} s"
        print(f"| {row['fault']} | {row['victim']} | {answered} | {row['clients']} | {nxt} |")
    print()
    print(f"client jobs in all: {dict(counts)}")
    print(
        f"pool counters (/metrics): kills {stats.get('kills')}, starts {stats.get('starts')}, "
        f"start failures {stats.get('start_failures')}"
    )
    print(f"left behind after close: {leftovers(pool)}")


if __name__ == "__main__":
    main()
