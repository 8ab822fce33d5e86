"""Fair sharing of the sandbox between clients (people, not tabs): per-client caps, and a queue
that serves clients in turn instead of first come, first served.

The gate sits in the service, in front of whichever executor runs the jobs (the local pool or
Ray), and lets at most `slots` jobs into it at once; everyone else waits here:

    client A: a1 a2 a3      fair order:  a1 b1 c1 a2 a3
    client B: b1            (a client's second job waits behind every other client's
    client C: c1             first one, however early it came)

A job still running after PLAYGROUND_DEMOTE_AFTER_S goes on at nice 19 (the sandbox's
supervisor says "demoted"); up to `background` such jobs then stop counting against the slots, so
a short job starts beside a long one instead of waiting the long one out.

Refusals, each with a message that names the limit and when to come back:
  - a client with `queued_per_client` jobs already waiting (its own queue is full);
  - more than `runs_per_minute` runs started by one client in the last minute;
  - more than `seconds_per_minute` seconds of sandbox time used by one client's runs that
    ended in the last minute (a client whose jobs keep hitting the timeout pays for them);
  - the whole queue is full (`queue_limit`).
"""

from __future__ import annotations

import collections
import itertools
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..contract.config import Settings
from ..contract.errors import Cancelled, LimitError, Maintenance, Restarting, WarmingUp
from ..contract.i18n import N_, _
from ..contract.job import Job, Report
from ..contract.job_control import JobControl
from ..contract.protocol import OnEvent, Queued, as_event
from . import metrics
from .executor import Executor, stats_of, warming_s

WINDOW_S = 60.0
RESTARTING = N_(
    "The server is restarting and takes no new Runs. Your code and settings are kept; run again in a minute."
)
CUT_SHORT = N_(
    "The server restarted before your Run finished; your code was not the cause. Your code and "
    "settings are kept; run again in a minute."
)


@dataclass(frozen=True)
class ClientLimits:
    slots: int = 2  # jobs in the executor at once (the pool's size)
    background: int = 0  # more jobs at once, while that many run demoted
    running_per_client: int = 1
    queued_per_client: int = 2
    runs_per_minute: int = 20
    seconds_per_minute: float = 40.0
    queue_limit: int = 16

    @classmethod
    def from_settings(cls, settings: Settings) -> ClientLimits:
        return cls(
            slots=settings.fair_slots or settings.pool_size,
            background=settings.background_slots,
            running_per_client=settings.client_running,
            queued_per_client=settings.client_queued,
            runs_per_minute=settings.runs_per_minute,
            seconds_per_minute=settings.client_seconds_per_minute,
            queue_limit=settings.queue_limit,
        )


class _Ticket:
    def __init__(self, client: str, round_: int, seq: int) -> None:
        self.client, self.round, self.seq = client, round_, seq
        self.admitted = False
        self.demoted = False

    @property
    def order(self) -> tuple[int, int]:
        return self.round, self.seq


class FairQueue:
    """Admission in round-robin order among clients, within per-client caps. Thread-safe.

    Each job gets a round: a client's first waiting job joins the current round, each further
    one the round after its previous job's. Jobs are admitted by (round, arrival), so every
    client's n-th job comes before anyone's (n+1)-th.
    """

    def __init__(self, limits: ClientLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._cond = threading.Condition()
        self._waiting: list[_Ticket] = []  # kept sorted by (round, arrival)
        self._running: collections.Counter[str] = collections.Counter()
        self._demoted = 0  # running jobs now at nice 19
        self._last_round: dict[str, int] = {}  # of each client's latest job
        self._round = 0  # of the latest job admitted
        self._seq = itertools.count()
        self._starts: dict[str, collections.deque[float]] = {}
        self._charges: dict[str, collections.deque[tuple[float, float]]] = {}
        self._durations: collections.deque[float] = collections.deque(maxlen=20)
        self.closed = False  # the server is stopping: a job still waiting is told so

    # -- entering --------------------------------------------------------------------------
    def enter(self, client: str) -> _Ticket:
        """Queues a job for the client, or raises LimitError saying which limit it hit."""
        with self._cond:
            self._refuse_if_over(client)
            previous = self._last_round.get(client)
            round_ = self._round if previous is None else max(self._round, previous + 1)
            ticket = _Ticket(client, round_, next(self._seq))
            self._last_round[client] = round_
            self._waiting.append(ticket)
            self._waiting.sort(key=lambda t: t.order)
            self._starts.setdefault(client, collections.deque()).append(self.clock())
            self._admit()
            return ticket

    def check(self, client: str) -> None:
        """Raises the LimitError a job from `client` would meet now; queues nothing."""
        with self._cond:
            self._refuse_if_over(client)

    def _refuse_if_over(self, client: str) -> None:
        now, limits = self.clock(), self.limits
        queued = sum(1 for t in self._waiting if t.client == client)
        if queued >= limits.queued_per_client:
            raise LimitError(
                _(
                    "You already have {queued} run(s) waiting (from another tab?). "
                    "Your code and settings are kept; run again when one has "
                    "finished."
                ).format(queued=queued),
                retry_after_s=self.eta_s(1),
            )
        starts = _recent(self._starts.get(client), now)
        if len(starts) >= limits.runs_per_minute:
            wait = WINDOW_S - (now - starts[0])
            raise LimitError(
                _(
                    "Rate limit: at most {n} runs a minute per visitor. Your code and "
                    "settings are kept; try again in {s:.0f} s."
                ).format(n=limits.runs_per_minute, s=max(wait, 1)),
                retry_after_s=max(wait, 1),
            )
        charges = _recent(self._charges.get(client), now, key=lambda c: c[0])
        used = sum(seconds for _end, seconds in charges)
        if used >= limits.seconds_per_minute:
            wait = max(WINDOW_S - (now - charges[0][0]), 1)
            raise LimitError(
                _(
                    "Sandbox time limit: your last {n} run(s) used {used:.0f} s of sandbox time "
                    "in the last minute (at most {limit:.0f} s per visitor). Your code "
                    "and settings are kept; try again in {s:.0f} s."
                ).format(n=len(charges), used=used, limit=limits.seconds_per_minute, s=wait),
                retry_after_s=wait,
            )
        if len(self._waiting) >= limits.queue_limit:
            eta = self.eta_s(len(self._waiting))
            raise LimitError(
                _("Busy: {n} runs are waiting; try again in about {s} s.").format(
                    n=len(self._waiting), s=eta
                ),
                retry_after_s=eta,
            )

    # -- serving ---------------------------------------------------------------------------
    def _admit(self) -> None:
        """With the lock held: fill free slots with the earliest eligible jobs."""
        limits = self.limits
        while True:
            running = sum(self._running.values())  # demoted ones count only as background
            if running - self._demoted >= limits.slots or running >= limits.slots + limits.background:
                return
            ticket = next(
                (t for t in self._waiting if self._running[t.client] < limits.running_per_client), None
            )
            if ticket is None:
                return
            self._waiting.remove(ticket)
            ticket.admitted = True
            self._running[ticket.client] += 1
            self._round = max(self._round, ticket.round)
            self._cond.notify_all()

    def demote(self, ticket: _Ticket) -> None:
        """The ticket's job now runs at the lowest priority: it may free its slot for another."""
        with self._cond:
            if ticket.admitted and not ticket.demoted:
                ticket.demoted = True
                self._demoted += 1
                self._admit()

    def position(self, ticket: _Ticket) -> int:
        """Jobs that will be admitted before this one, in the fair order."""
        with self._cond:
            return self._waiting.index(ticket) if ticket in self._waiting else 0

    def wait(self, ticket: _Ticket, emit: OnEvent) -> None:
        """Blocks until the ticket is admitted, telling the client its place when it moves."""
        told: tuple[int, bool] | None = None
        with self._cond:
            while not ticket.admitted:
                if self.closed:
                    raise Restarting(_(CUT_SHORT), retry_after_s=60.0)
                place = self.position(ticket)  # the condition's lock is re-entrant
                own = self._running[ticket.client] >= self.limits.running_per_client
                if (place, own) != told:
                    emit(as_event(Queued(place, self.eta_s(place + 1), behind_own_run=own)))
                    told = (place, own)
                self._cond.wait(1.0)

    def leave(self, ticket: _Ticket, seconds: float) -> None:
        """The job ended (or never started): free its slot and charge the client its time."""
        with self._cond:
            if ticket.admitted:
                self._running[ticket.client] -= 1
                self._demoted -= ticket.demoted
                self._durations.append(seconds)
                self._charges.setdefault(ticket.client, collections.deque()).append((self.clock(), seconds))
            elif ticket in self._waiting:
                self._waiting.remove(ticket)
            self._admit()
            self._cond.notify_all()

    def close(self) -> None:
        """Every job still waiting leaves, told that the server is stopping."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def stats(self) -> dict:
        """Jobs waiting for a slot and jobs holding one, now (for /metrics)."""
        with self._cond:
            return {"waiting": len(self._waiting), "running": sum(self._running.values())}

    def billed(self, client: str) -> list[float]:
        """The sandbox seconds billed to `client` for each run that ended in the last minute."""
        with self._cond:
            recent = _recent(self._charges.get(client), self.clock(), key=lambda c: c[0])
        return [seconds for _end, seconds in recent]

    def eta_s(self, jobs_ahead: int) -> int:
        typical = statistics.median(self._durations) if self._durations else 5.0
        return int(round(jobs_ahead * typical / max(self.limits.slots, 1)))


def _recent(stamps: collections.deque | None, now: float, key: Callable = lambda s: s) -> list:
    """Drops what is older than the window from the left of the deque; returns the rest."""
    if not stamps:
        return []
    while stamps and now - key(stamps[0]) >= WINDOW_S:
        stamps.popleft()
    return list(stamps)


class FairExecutor:
    """An executor behind the fair queue: submit(job, on_event, client=...)."""

    def __init__(self, executor: Executor, limits: ClientLimits, maintenance_file: str = "") -> None:
        self.executor = executor
        self.queue = FairQueue(limits)
        self.maintenance_file = maintenance_file
        self.closed = False
        self.draining = False  # SIGTERM: no new Runs (drain below)
        self.cut = False  # the drain's bound passed: the Runs still in flight are stopped
        self._controls: dict[int, JobControl] = {}  # of the Runs in flight, to stop them then
        self._lock = threading.Lock()

    def submit(
        self,
        job: Job,
        on_event: OnEvent | None = None,
        client: str = "anonymous",
        control: JobControl | None = None,
    ) -> Report:
        emit = on_event or (lambda event: None)
        self.admit()
        control = control or JobControl()  # the drain stops the job through it
        ticket = self.queue.enter(client)
        entered, started = time.monotonic(), None  # started: once the job holds a slot
        with self._lock:
            self._controls[id(control)] = control
        try:
            self.queue.wait(ticket, emit)
            if control.stop.is_set():  # stopped while it waited
                raise Cancelled(_("Stopped before it started."))
            started = time.monotonic()
            metrics.WAITING.observe(started - entered)
            relay = lambda event: self._relay(ticket, event, emit)  # noqa: E731
            try:
                report = self.executor.submit(job, relay, control)
            except Exception as error:
                if self.cut:  # stopped by the drain: the server's doing, not the code's
                    raise Restarting(_(CUT_SHORT), retry_after_s=60.0) from error
                raise
            if self.cut and report.status not in ("ok", "error"):
                raise Restarting(_(CUT_SHORT), retry_after_s=60.0)
            return report
        finally:
            with self._lock:
                self._controls.pop(id(control), None)
            # Billed by this clock, from the slot's start: a number in the report is the
            # worker's to forge, and a cancelled or failed run still used its time.
            charged = time.monotonic() - started if started is not None else 0.0
            self.queue.leave(ticket, charged)
            if started is not None:
                metrics.RUNNING.observe(charged)

    def warming_s(self) -> float | None:
        if self.closed:  # asking a closed restarting executor would build a new pool
            return None
        return warming_s(self.executor)

    def stats(self) -> list[dict]:
        """The fair queue's numbers, then the executor's (one dict per pool), for /metrics."""
        return [self.queue.stats(), *([] if self.closed else stats_of(self.executor))]

    def maintenance(self) -> str | None:
        """The operator's message while PLAYGROUND_MAINTENANCE_FILE exists (its first 500
        characters, or a plain sentence for an empty file); None: open."""
        if not self.maintenance_file:
            return None
        try:
            with open(self.maintenance_file, encoding="utf-8", errors="replace") as file:
                text = " ".join(file.read(2000).split())[:500]
        except FileNotFoundError:
            return None
        except OSError:  # there but unreadable: closed all the same
            text = ""
        return text or _("The playground is closed for maintenance; please come back later.")

    def admit(self) -> None:
        """Before any queueing, for every door (the page, the API): the operator's maintenance
        mode, then the warm-up. Runs already admitted are not touched."""
        if self.draining:
            raise Restarting(_(RESTARTING), retry_after_s=60.0)
        message = self.maintenance()
        if message is not None:
            raise Maintenance(message, retry_after_s=60.0)
        self.refuse_while_warming()

    def check(self, client: str) -> None:
        """The refusal a Run from `client` would meet now (maintenance, the warm-up, a
        per-client limit, a full queue), raised before anything is queued or drawn: the page
        asks when Run is pressed. A Run that passes may still be refused at submit, if others
        filled the queue meanwhile."""
        self.admit()
        self.queue.check(client)

    def refuse_while_warming(self) -> None:
        """A server just started takes no Run until its sandbox has imported TensorFlow: the
        first visitor would wait for that import inside their Run."""
        left = self.warming_s()
        if left is not None:
            raise WarmingUp(
                _(
                    "Warming up: the server has just started and its sandbox is loading "
                    "TensorFlow, about {seconds} s. Your code and settings are kept; run again then."
                ).format(seconds=f"{left:.0f}"),
                retry_after_s=left,
            )

    def _relay(self, ticket: _Ticket, event: dict, emit: OnEvent) -> None:
        if event.get("event") == "demoted":
            self.queue.demote(ticket)
        emit(event)

    def in_flight(self) -> int:
        """Runs admitted and not yet answered: waiting for a slot, or holding one."""
        stats = self.queue.stats()
        return stats["waiting"] + stats["running"]

    def drain(self, bound_s: float, clock: Callable[[], float] = time.monotonic) -> int:
        """On SIGTERM: refuses new Runs from now on, lets those in flight finish for up to
        `bound_s`, then stops the rest (each ends with CUT_SHORT, billed as any stopped run) and
        waits a little for them to be answered. Returns how many were cut short."""
        self.draining = True
        deadline = clock() + bound_s
        while self.in_flight() and clock() < deadline:
            time.sleep(0.05)
        left = self.in_flight()
        if left:
            self.cut = True
            self.queue.close()
            with self._lock:
                controls = list(self._controls.values())
            for control in controls:
                control.stop.set()
            answered_by = clock() + 5.0  # a stopped worker is killed within 0.1 s
            while self.in_flight() and clock() < answered_by:
                time.sleep(0.05)
        return left

    def close(self) -> None:
        self.closed = True
        self.executor.close()
