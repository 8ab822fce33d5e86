"""The worker pool: N pre-warmed sandboxed workers, one fresh worker per job, a bounded queue.

Under bubblewrap each worker is forked from one of N warm zygotes (forked.py), so a job costs a
fork instead of a TensorFlow import; otherwise each is a freshly started process (process.py).

Imported by the Streamlit process, so it must never import TensorFlow or the engine; only the
worker children do. Thread-safe: every session of the app shares one pool.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import threading
import time

from ..contract import versions
from ..contract.config import Settings
from ..contract.errors import LimitError, SandboxError
from ..contract.i18n import _
from ..contract.job import Job, Report
from ..contract.job_control import JobControl
from ..contract.protocol import OnEvent, Queued, Started, as_event
from ..contract.source_text import check_text
from . import exports, layout
from .forked import NOTE as FORKED_NOTE
from .forked import ForkedWorker, Zygotes, fork_wanted
from .outcome import finish, kill_cause, sandbox_info
from .process import SandboxConfig, SandboxedWorker, WorkerGone, WorkerProcess, disk_full
from .supervisor import supervise

START_TIMEOUT_S = 120.0  # a TF import on a busy 2-core machine; a hung start is an error
# A fresh pool's first warm worker, from the pool's start (warm_after_s; the sandbox test
# prints it): the estimate a visitor is told while the server warms up.
WARM_UP_S = 15.0
MAX_START_FAILURES = 3  # then submit raises instead of waiting for workers forever
MIN_ROOM_BYTES = 16 << 20  # a job's source and its report's files; an export checks its own
GONE_RETRIES = 2  # a job whose worker was found dead before it got the job goes to another


class WorkerPool:
    def __init__(self, settings: Settings, config: SandboxConfig | None = None) -> None:
        self.settings = settings
        self.config = config or SandboxConfig.from_settings(settings)
        self.size = max(1, settings.pool_size)
        self._cond = threading.Condition()
        self._ready: list[SandboxedWorker] = []
        self._waiting: list[object] = []
        self._starting = self._running = self._failures = 0
        self._last_error = ""
        self._closed = False
        self._walls: collections.deque[float] = collections.deque(maxlen=20)
        self.starts, self.start_failures = 0, 0  # for /metrics (runs/metrics.py)
        self.kills: collections.Counter[str] = collections.Counter()
        self.disk_full_refusals = 0
        self._created = time.monotonic()
        self._warm_at: float | None = None  # when the first worker was ready
        self._zygotes = (
            Zygotes(self.config, self.size, START_TIMEOUT_S)
            if fork_wanted(settings.fork_workers, self.config.isolation)
            else None
        )
        with self._cond:
            self._fill()

    @classmethod
    def from_settings(cls, settings: Settings) -> WorkerPool:
        return cls(settings)

    @property
    def isolation(self) -> str:
        return self.config.isolation

    def submit(self, job: Job, on_event: OnEvent | None = None, control: JobControl | None = None) -> Report:
        """Queues the job (reporting its place), runs it on a fresh warm worker, returns the
        Report. Raises LimitError at once when the queue is full. An export is then verified
        on another fresh worker."""
        check_text(job.source)  # before a worker is used: the job file must be writable text
        return exports.export_then_verify(job, lambda j: self._submit_one(j, on_event, control))

    def _submit_one(self, job: Job, on_event: OnEvent | None, control: JobControl | None = None) -> Report:
        emit = on_event or (lambda event: None)
        asked = time.monotonic()
        self._check_room()
        for attempt in range(1, GONE_RETRIES + 2):
            worker = self._take(emit)
            # Warm: forked from a zygote that had imported TensorFlow before this job asked.
            warm = isinstance(worker, ForkedWorker) and worker.zygote.ready_at <= asked
            emit(as_event(Started()))
            timeout = min(job.timeout_s, self.settings.timeout_s)
            done = threading.Event()
            if control is not None:
                control.uid = worker.uid
                threading.Thread(target=_kill_on, args=(control.stop, done, worker), daemon=True).start()
            try:
                outcome = supervise(worker, job, timeout, on_event, self.settings.demote_after_s)
                break
            except WorkerGone:  # killed while idle, after the pool's last look: none of it ran
                if attempt > GONE_RETRIES:
                    raise
            finally:
                done.set()
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()
                threading.Thread(target=self._retire, args=(worker, False), daemon=True).start()
        self._walls.append(outcome.wall_s)
        cause = kill_cause(outcome)
        if cause is not None:
            self.kills[cause] += 1
        report = finish(outcome, self._sandbox_info(worker, timeout), timeout, job.language)
        report = with_warm(report, warm)
        return exports.with_collected(report, *outcome.files.result())

    def _check_room(self) -> None:
        """A job needs room for its files on the host (its source, an export): on a full disk it
        is refused before it queues, with the reason, and counted for the operator."""
        try:
            room = layout.room_left()
        except OSError:
            return  # no answer: the job's own write says so if it must
        if room < MIN_ROOM_BYTES:
            with self._cond:
                self.disk_full_refusals += 1
            raise disk_full()

    def _take(self, emit: OnEvent) -> SandboxedWorker:
        ticket = object()
        with self._cond:
            if self._closed:
                raise SandboxError("the worker pool is closed")
            if len(self._waiting) >= self.settings.queue_limit:
                raise LimitError(
                    _("Busy: {n} jobs queued; try again in ~{s} s").format(
                        n=len(self._waiting), s=self._eta_s(len(self._waiting))
                    )
                )
            self._waiting.append(ticket)
        told: int | None = None
        try:
            while True:
                with self._cond:
                    worker, position = self._next_worker(ticket)
                    if worker is None and position == told:
                        self._cond.wait(1.0)
                        continue
                if worker is not None:
                    return worker
                told = position
                emit(as_event(Queued(position, self._eta_s(position))))
        finally:
            with self._cond:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)

    def _next_worker(self, ticket: object) -> tuple[SandboxedWorker | None, int]:
        """With the lock held: a live warm worker for this ticket if it is its turn."""
        if self._closed:
            raise SandboxError("the worker pool is closed")
        position = self._waiting.index(ticket)
        while position == 0 and self._running < self.size and self._ready:
            worker = self._ready.pop(0)
            if not worker.alive():  # died while idle: replace it
                threading.Thread(target=self._retire, args=(worker,), daemon=True).start()
                continue
            self._waiting.remove(ticket)
            self._running += 1
            self._fill()  # refill now, while this job runs
            return worker, 0
        if not self._ready and not self._starting and self._failures >= MAX_START_FAILURES:
            raise SandboxError(f"the sandbox cannot start workers: {self._last_error}")
        return None, position

    def _fill(self) -> None:
        """With the lock held: start workers until `size` are warm or warming (a fresh process
        warms while a job runs; a zygote forks its next worker once its last one is gone)."""
        busy = self._running if self._zygotes is not None else 0
        while (
            not self._closed
            and len(self._ready) + self._starting + busy < self.size
            and self._failures < MAX_START_FAILURES
        ):
            self._starting += 1
            threading.Thread(target=self._start_one, daemon=True).start()

    def _start_one(self) -> None:
        worker: SandboxedWorker | None = None
        try:
            worker = self._zygotes.fork() if self._zygotes is not None else WorkerProcess(self.config)
            if worker is None:  # every zygote is still busy: a release refills
                with self._cond:
                    self._starting -= 1
                return
            worker.wait_ready(START_TIMEOUT_S)
        except Exception as e:  # noqa: BLE001 - any failure to start is reported to waiting submitters
            if worker is not None:
                _discard(worker)
            with self._cond:
                self._starting -= 1
                self._failures += 1
                self.start_failures += 1
                self._last_error = str(e)
                self._fill()
                self._cond.notify_all()
            return
        with self._cond:
            self._starting -= 1
            self._failures = 0
            self.starts += 1
            if self._warm_at is None:
                self._warm_at = time.monotonic()
            if self._closed:
                threading.Thread(target=self._retire, args=(worker,), daemon=True).start()
            else:
                self._ready.append(worker)
            self._cond.notify_all()

    def warming_s(self) -> float | None:
        """None once a worker has been warm (TensorFlow imported); until then, about how many
        seconds are left. A pool whose workers cannot start is not warming: it says so at Run."""
        if self._warm_at is not None or self._closed or self._failures >= MAX_START_FAILURES:
            return None
        return max(1.0, WARM_UP_S - (time.monotonic() - self._created))

    def stats(self) -> list[dict]:
        """This pool's numbers now, for /metrics: warm workers, starts, kills by cause."""
        with self._cond:
            return [
                {
                    "ready": len(self._ready),
                    "starts": self.starts,
                    "start_failures": self.start_failures,
                    "kills": dict(self.kills),
                    "disk_full_refusals": self.disk_full_refusals,
                    "warming_s": self.warming_s() or 0.0,
                }
            ]

    def warm_after_s(self) -> float | None:
        """Seconds from the pool's start to its first warm worker, once there is one."""
        return None if self._warm_at is None else self._warm_at - self._created

    def _eta_s(self, queued: int) -> int:
        per_job = sum(self._walls) / len(self._walls) if self._walls else 3.0
        return max(1, math.ceil((queued // self.size + 1) * per_job))

    def _retire(self, worker: SandboxedWorker, kill: bool = True) -> None:
        """Off the caller's thread: stop and clean up a worker, then start its replacement."""
        if kill:
            _discard(worker)
        else:
            worker.release()
        with self._cond:
            self._fill()
            self._cond.notify_all()

    def _sandbox_info(self, worker: SandboxedWorker, timeout: float):
        notes = (
            [f"GPU: {worker.gpus} device(s), {self.settings.gpu_memory_mb} MiB each"] if worker.gpus else []
        )
        if self._zygotes is not None:
            notes.append(FORKED_NOTE)
        return sandbox_info(
            self.config.isolation, _limits(self.config, worker, timeout), self.config.notes, notes
        )

    def wait_ready(self, count: int | None = None, timeout_s: float = START_TIMEOUT_S) -> bool:
        """Blocks until `count` workers are warm (for benchmarks and start-up health checks)."""
        count = self.size if count is None else count
        with self._cond:
            return (
                self._cond.wait_for(
                    lambda: len(self._ready) >= count or self._closed or self._failures >= MAX_START_FAILURES,
                    timeout_s,
                )
                and len(self._ready) >= count
            )

    def close(self) -> None:
        with self._cond:
            self._closed = True
            idle, self._ready = self._ready, []
            self._cond.notify_all()
        for worker in idle:
            _discard(worker)
        if self._zygotes is not None:
            self._zygotes.close()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _limits(config: SandboxConfig, worker: SandboxedWorker, timeout: float) -> dict:
    limits = dict(config.limits, wall_s=timeout)
    if worker.uid is not None:
        limits["uid"] = worker.uid  # the job ran as this uid, alone
    return limits


def _discard(worker: SandboxedWorker) -> None:
    worker.kill()
    worker.release()


def _kill_on(cancel: threading.Event, done: threading.Event, worker: SandboxedWorker) -> None:
    """Kills the job's worker once `cancel` is set, unless the job ended first."""
    while not done.is_set():
        if cancel.wait(0.1):
            if not done.is_set():
                worker.kill()
            return


def with_warm(report: Report, warm: bool) -> Report:
    executor = report.executor
    return (
        report
        if executor is None
        else dataclasses.replace(report, executor=dataclasses.replace(executor, warm=warm))
    )


def run_once(job: Job, settings: Settings, on_event: OnEvent | None = None) -> Report:
    """The cold path (the CLI): one worker, no pool, same sandbox and same Report; an export is
    verified on a second fresh worker."""
    check_text(job.source)
    try:
        settings = versions.settings_for_job(settings, job)
    except versions.VersionError as e:
        return versions.error_report(job, e)
    config = SandboxConfig.from_settings(settings)
    return exports.export_then_verify(job, lambda j: _run_cold(j, settings, config, on_event))


def _run_cold(job: Job, settings: Settings, config: SandboxConfig, on_event: OnEvent | None) -> Report:
    worker = WorkerProcess(config)
    timeout = min(job.timeout_s, settings.timeout_s)
    try:
        worker.wait_ready(START_TIMEOUT_S)
        if on_event is not None:
            on_event(as_event(Started()))
        outcome = supervise(worker, job, timeout, on_event, settings.demote_after_s)
    except BaseException:
        worker.kill()
        raise
    finally:
        worker.release()
    info = sandbox_info(config.isolation, _limits(config, worker, timeout), config.notes)
    report = with_warm(finish(outcome, info, timeout, job.language), False)  # its own TF import
    return exports.with_collected(report, *outcome.files.result())
