"""Decides where a job runs on a Ray cluster, and turns every Ray failure into a Report.

Each job is one Ray task that runs the local sandbox (`playground.sandbox.run_once`) on the
node it lands on: user code never runs inside the long-lived, shared Ray worker itself. The
task streams the sandbox's events back (a Ray streaming generator), so the UI stays live and
the driver knows whether user code can have started. Never imports TensorFlow in the driver.
"""
from __future__ import annotations

import dataclasses
import json
import os
import queue
import signal
import socket
import threading
import time
from typing import Any, Callable, Iterator, Optional

from .config import Settings
from .errors import PlaygroundError, SandboxError
from .job import ErrorInfo, ExecutorInfo, Job, Report, job_from_json, job_to_json

try:
    import ray
    import ray.exceptions
except ImportError as e:  # Ray is optional: the local pool needs nothing extra
    raise SandboxError("Ray is not installed: pip install -r requirements-ray.txt") from e

OnEvent = Callable[[dict], None]
QUEUE_TIMEOUT_S = 120.0    # waiting for a free slot (or an autoscaled GPU node) is not a failure
START_MARGIN_S = 150.0     # the sandbox's own cold start limit (120 s) plus Ray's worker start
RUN_MARGIN_S = 15.0        # the sandbox enforces job.timeout_s itself; this catches a lost node
CANCEL_GRACE_S = 5.0       # a polite cancel lets run_once clean up before a hard kill
SCHEDULE_ATTEMPTS = 2      # resubmits only while no user code can have run


def _node_name() -> str:
    """Host and the IP Ray knows the node by (the node the task actually landed on)."""
    try:
        ip = ray._private.worker.global_worker.node_ip_address
    except AttributeError:   # private API moved: the node id still names the node
        ip = "node " + ray.get_runtime_context().get_node_id()[:12]
    return f"{socket.gethostname()} ({ip})"


def _children() -> set[int]:
    """Direct children of this process (all threads): the sandbox workers run_once started."""
    pids: set[int] = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids.update(int(p) for p in f.read().split())
        except OSError:
            pass
    return pids


def _run_on_node(job_json: str, settings: Settings) -> Iterator[str]:
    """The Ray task body: one sandboxed run, yielding JSON lines, the report last."""
    from .sandbox import run_once   # imported on the node only

    yield json.dumps({"event": "node", "node": _node_name(), "pid": os.getpid()})
    events: queue.SimpleQueue = queue.SimpleQueue()
    before = _children()

    def work() -> None:
        try:
            report = run_once(job_from_json(job_json), settings, events.put)
            events.put({"event": "report", "report": report.to_json()})
        except PlaygroundError as e:
            events.put({"event": "error", "type": type(e).__name__, "message": str(e)})
        except BaseException as e:  # reported, not lost: the driver turns it into a Report
            events.put({"event": "error", "type": type(e).__name__, "message": str(e)[:2000]})

    # A thread, so events stream while run_once blocks. bwrap --die-with-parent ties the
    # sandbox to this process: a force-cancelled or crashed Ray worker takes it down too.
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    try:
        while True:
            event = events.get()
            if event.get("event") == "started":   # which processes run the job, for audits
                event = dict(event, sandbox_pids=sorted(_children() - before))
            yield json.dumps(event)
            if event.get("event") in ("report", "error"):
                return
    except BaseException:
        # A polite ray.cancel lands here (KeyboardInterrupt): kill the sandbox worker so
        # run_once returns and sweeps its uid, instead of leaving the job running.
        for pid in _children() - before:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        thread.join(10.0)
        raise


class RayRun:
    """One submitted job: its streaming task, and what the driver has learnt so far."""

    def __init__(self, job: Job, ref: Any, attempt: int) -> None:
        self.job, self.ref, self.attempt = job, ref, attempt
        self.node = ""
        self.pid: Optional[int] = None
        self.started = False           # the sandbox worker has the job: user code may run
        self.cancelled = ""            # why the driver cancelled it, if it did
        self.submitted = time.monotonic()
        self.scheduled_at = self.started_at = 0.0


class RayExecutor:
    """submit(job) -> Report on a Ray cluster; owns the Ray connection only if it made it."""

    def __init__(self, settings: Settings, address: Optional[str] = None,
                 num_cpus: Optional[int] = None, queue_timeout_s: float = QUEUE_TIMEOUT_S) -> None:
        self.settings = settings
        self.queue_timeout_s = queue_timeout_s
        self._owns_ray = False
        if not ray.is_initialized():
            address = address if address is not None else os.environ.get("RAY_ADDRESS", "")
            try:
                if address:
                    ray.init(address=address, logging_level="WARNING", log_to_driver=False)
                else:   # a private local instance, loopback only, like a laptop's CLI run
                    # "local": never join someone else's `ray start` on this machine by accident
                    ray.init(address="local", num_cpus=num_cpus or max(1, settings.pool_size),
                             include_dashboard=False, _node_ip_address="127.0.0.1",
                             logging_level="WARNING", log_to_driver=False)
            except Exception as e:  # a bad address or a dead head node is the user's to fix
                raise SandboxError(f"cannot connect to Ray at {address or 'a local instance'}: "
                                   f"{e}") from e
            self._owns_ray = True
        self._task = ray.remote(_run_on_node)

    @classmethod
    def from_settings(cls, settings: Settings) -> "RayExecutor":
        return cls(settings)

    def start(self, job: Job, attempt: int = 1) -> RayRun:
        """Queues the job as a Ray task and returns at once."""
        resources: dict[str, Any] = {"num_gpus": 1, "num_cpus": 1} if job.device == "gpu" \
            else {"num_cpus": 1}
        # max_retries=0: a task that died may have run user code; retrying is the driver's
        # call, and only before the sandbox took the job (see wait).
        ref = self._task.options(num_returns="streaming", max_retries=0,
                                 retry_exceptions=False, **resources).remote(
            job_to_json(job), self.settings)
        return RayRun(job, ref, attempt)

    def submit(self, job: Job, on_event: Optional[OnEvent] = None) -> Report:
        return self.wait(self.start(job), on_event)

    def wait(self, run: RayRun, on_event: Optional[OnEvent] = None) -> Report:
        """Follows the task to its report; every failure becomes a Report, never a hang."""
        emit = on_event or (lambda event: None)
        while True:
            try:
                report = self._follow(run, emit)
            except (ray.exceptions.RayError, StopIteration) as e:
                if isinstance(e, ray.exceptions.RayTaskError) and isinstance(
                        e.cause, PlaygroundError):
                    raise e.cause from None   # same as locally: the sandbox could not run it
                if not run.started and not run.cancelled and run.attempt < SCHEDULE_ATTEMPTS:
                    run = self.start(run.job, run.attempt + 1)   # no user code ran: safe
                    continue
                return self._failed(run, "killed", self._why(run, e))
            if report is not None:
                return report
            return self._failed(run, "timeout", run.cancelled)

    def _follow(self, run: RayRun, emit: OnEvent) -> Optional[Report]:
        """Reads events until the report; None after a deadline (the task is then cancelled)."""
        timeout = min(run.job.timeout_s, self.settings.timeout_s)
        while True:
            if run.started:
                deadline, why = run.started_at + timeout + RUN_MARGIN_S, \
                    f"Time limit: no result from the Ray node {timeout:g} s after the job " \
                    f"started (node lost or unresponsive); stopped"
            elif run.node:
                deadline, why = run.scheduled_at + START_MARGIN_S, \
                    "Time limit: the sandbox on the Ray node did not start; stopped"
            else:
                deadline, why = run.submitted + self.queue_timeout_s, \
                    f"Time limit: no Ray node with {self._needs(run.job)} free within " \
                    f"{self.queue_timeout_s:g} s (cluster busy, or no such node)"
            ready, _ = ray.wait([run.ref], timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                run.cancelled = why
                self.cancel(run, force=False)
                return None
            event = json.loads(ray.get(next(run.ref)))
            kind = event.get("event")
            if kind == "node":
                run.node, run.pid, run.scheduled_at = event["node"], event["pid"], time.monotonic()
            elif kind == "report":
                report = Report.from_json(event["report"])
                return dataclasses.replace(report, executor=ExecutorInfo("ray", run.node))
            elif kind == "error":
                known = _playground_errors()
                if event["type"] in known:   # same as locally: the sandbox could not run it
                    raise known[event["type"]](event["message"])
                raise SandboxError(f"the Ray task failed: {event['type']}: {event['message']}")
            else:
                if kind == "started":
                    run.started, run.started_at = True, time.monotonic()
                emit(event)

    def cancel(self, run: RayRun, force: bool = True) -> None:
        """Stops the job: politely (the sandbox cleans up), then by killing the Ray worker."""
        run.cancelled = run.cancelled or "Cancelled: the Ray task was stopped"
        ray.cancel(run.ref, force=force)
        if not force:
            ready, _ = ray.wait([run.ref], timeout=CANCEL_GRACE_S)
            if not ready:
                ray.cancel(run.ref, force=True)

    def close(self) -> None:
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
        self._owns_ray = False

    def __enter__(self) -> "RayExecutor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _needs(job: Job) -> str:
        return "a GPU" if job.device == "gpu" else "a CPU"

    @staticmethod
    def _why(run: RayRun, e: BaseException) -> str:
        where = f" on {run.node}" if run.node else ""
        if run.cancelled:
            return run.cancelled + where
        if isinstance(e, ray.exceptions.TaskCancelledError):
            return f"Cancelled: the Ray task was stopped{where}"
        if isinstance(e, (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                          ray.exceptions.LocalRayletDiedError)):
            return (f"Killed: the Ray worker{where} died while running the job "
                    f"({type(e).__name__}); not retried, since the job may have run")
        first = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
        return f"Killed: the Ray task failed{where}: {type(e).__name__}: {first}".rstrip(": ")

    @staticmethod
    def _failed(run: RayRun, status: str, message: str) -> Report:
        return Report(tensorflow_version="unknown", device="unknown",
                      status=status,  # type: ignore[arg-type]
                      error=ErrorInfo(type=status.capitalize(), message=message), stdout="",
                      warnings=[], functions=[], executor=ExecutorInfo("ray", run.node or "?"),
                      message=message, duration_s=time.monotonic() - run.submitted)


def _playground_errors() -> dict[str, type]:
    from . import errors
    return {name: cls for name, cls in vars(errors).items()
            if isinstance(cls, type) and issubclass(cls, PlaygroundError)}
