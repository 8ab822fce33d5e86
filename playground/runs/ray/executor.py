"""submit(job) -> Report on a Ray cluster: follows each job's task, retries a job whose node or
pool actor died (once, on another node when there is one), and turns every Ray failure into a
Report. The node side (ray_pool.py) runs the job in that node's warm sandbox pool; the driver
never imports TensorFlow and never runs user code.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import threading
import time
from typing import Any

from ...contract.config import Settings
from ...contract.errors import LimitError, PlaygroundError, SandboxError
from ...contract.job import ErrorInfo, ExecutorInfo, Job, Report, job_to_json
from ...contract.job_control import JobControl
from ...contract.protocol import OnEvent, Retry, as_event

try:
    import ray
    import ray.exceptions
except ImportError as e:  # Ray is optional: the local pool needs nothing extra
    raise SandboxError("Ray is not installed: pip install -r requirements-ray.txt") from e

from ...sandbox import exports
from .connect import connect
from .node_pool import SLOT, run_job

QUEUE_TIMEOUT_S = 120.0  # waiting for a free slot (or an autoscaled node) is not a failure
START_MARGIN_S = 150.0  # a new node pool's zygotes import TF (limit 120 s) before the job
RUN_MARGIN_S = 15.0  # the sandbox enforces job.timeout_s itself; this catches a lost node
CANCEL_GRACE_S = 5.0  # a polite cancel lets the node kill the sandbox before a hard kill
ATTEMPTS = 2  # a job whose node or actor died runs once more, then is reported
# Lost infrastructure, not a failing job: these are worth one more try elsewhere.
LOST = (
    ray.exceptions.WorkerCrashedError,
    ray.exceptions.NodeDiedError,
    ray.exceptions.LocalRayletDiedError,
    ray.exceptions.RayActorError,
    ray.exceptions.ObjectLostError,
)


class Lost(Exception):
    """The node said its pool actor died under the job."""


class RayRun:
    """One attempt at a job: its streaming task, and what the driver has learnt so far."""

    def __init__(self, job: Job, ref: Any, attempt: int, lost: tuple[str, ...] = ()) -> None:
        self.job, self.ref, self.attempt, self.lost = job, ref, attempt, lost
        self.node = self.node_id = self.actor = ""
        self.pid: int | None = None  # the task's Ray worker
        self.actor_pid: int | None = None  # the node pool actor's process
        self.started = False  # the sandbox worker has the job: user code may run
        self.cancelled = ""  # why the driver cancelled it, if it did
        self.submitted = time.monotonic()
        self.scheduled_at = self.started_at = 0.0
        self.files = exports.FileSink(accept=job.export)  # the local caps, again, on arrival
        self.received = 0
        self.manifest: tuple[int, int] | None = None

    def receive(self, event: dict) -> None:
        data = str(event.get("data") or "")
        self.received += len(data) * 3 // 4 - data[-2:].count("=")
        self.files.receive(event)

    def collect(self, report: Report) -> Report:
        """The report with the export where this driver can read it, or dropped with a reason:
        a part that arrived is never passed on as a whole."""
        root, note = self.files.result()
        export = report.export
        count, size = self.manifest or (0, 0)
        whole = root is not None and len(self.files.files) == count and self.received == size
        if root is not None and not whole:
            shutil.rmtree(root, ignore_errors=True)
            root, note = (
                None,
                (
                    f"the export did not arrive whole through Ray "
                    f"({len(self.files.files)} of {count} files); dropped"
                ),
            )
        report = exports.with_collected(report, root, note)
        if export is not None and count and root is None and report.export is not None:
            report = _replace_export(report, verified=False)
        return report

    def discard(self) -> None:
        root, _ = self.files.result()
        if root:
            shutil.rmtree(root, ignore_errors=True)


class RayExecutor:
    """submit(job) -> Report on a Ray cluster; owns the Ray connection only if it made it."""

    def __init__(
        self,
        settings: Settings,
        address: str | None = None,
        num_cpus: int | None = None,
        queue_timeout_s: float = QUEUE_TIMEOUT_S,
    ) -> None:
        self.settings = settings
        self.queue_timeout_s = queue_timeout_s
        self._owns_ray = connect(address, num_cpus or max(1, settings.pool_size))
        self._task = ray.remote(run_job)

    @classmethod
    def from_settings(cls, settings: Settings) -> RayExecutor:
        return cls(settings)

    def start(self, job: Job, attempt: int = 1, avoid: str = "", lost: tuple[str, ...] = ()) -> RayRun:
        """Queues the job as a Ray task and returns at once; `avoid` names a node to keep off."""
        if job.attachments:
            raise LimitError(
                "a job with attachments cannot run through Ray (they are paths on "
                "this machine); export verification runs on the cluster itself"
            )
        # A slot, not a CPU: Ray lends a CPU away while the task waits on its node's actor.
        options: dict[str, Any] = (
            {"num_gpus": 1, "num_cpus": 1} if job.device == "gpu" else {"num_cpus": 0, "resources": {SLOT: 1}}
        )
        if avoid and self._other_nodes(avoid, job):
            options["label_selector"] = {"ray.io/node-id": f"!{avoid}"}
        # max_retries=0: a retry is the driver's decision (wait), made once and reported.
        ref = self._task.options(
            num_returns="streaming", max_retries=0, retry_exceptions=False, **options
        ).remote(job_to_json(job), self.settings)
        return RayRun(job, ref, attempt, lost)

    def submit(self, job: Job, on_event: OnEvent | None = None, control: JobControl | None = None) -> Report:
        run = self.start(job)
        done = threading.Event()
        if control is not None:  # the page's Stop: cancel the task (its first attempt's)
            threading.Thread(target=self._cancel_on, args=(control, run, done), daemon=True).start()
        try:
            return self.wait(run, on_event)
        finally:
            done.set()

    def _cancel_on(self, control: JobControl, run: RayRun, done: threading.Event) -> None:
        while not done.is_set():
            if control.stop.wait(0.2):
                if not done.is_set():
                    self.cancel(run, force=False)
                return

    def wait(self, run: RayRun, on_event: OnEvent | None = None) -> Report:
        """Follows the job to its report; every failure becomes a Report, never a hang. A lost
        node or actor costs one retry elsewhere (the user's code is then run again: its
        effects stay inside the throwaway sandbox)."""
        emit = on_event or (lambda event: None)
        while True:
            try:
                report = self._follow(run, emit)
                if report is not None:
                    return report
                return self._failed(run, "timeout", run.cancelled)
            except Lost as e:
                why = f"{e}{self._on(run)}"
            except (ray.exceptions.RayError, StopIteration) as e:
                if isinstance(e, ray.exceptions.RayTaskError) and isinstance(e.cause, PlaygroundError):
                    raise e.cause from None  # same as locally: the sandbox could not run it
                if run.cancelled or not isinstance(e, LOST + (StopIteration,)):
                    run.discard()
                    return self._failed(run, "killed", self._why(run, e))
                why = self._why(run, e)
            run.discard()
            lost = run.lost + (why,)
            if run.attempt >= ATTEMPTS:
                return self._failed(
                    run,
                    "killed",
                    (
                        f"Killed: the job was lost {len(lost)} times on Ray ({'; then '.join(lost)}); "
                        f"not retried again"
                    ),
                )
            emit(as_event(Retry(run.attempt + 1, why)))
            run = self.start(run.job, run.attempt + 1, avoid=run.node_id, lost=lost)

    def _follow(self, run: RayRun, emit: OnEvent) -> Report | None:
        """Reads events until the report; None after a deadline (the task is then cancelled)."""
        timeout = min(run.job.timeout_s, self.settings.timeout_s)
        while True:
            if run.started:
                deadline, why = (
                    run.started_at + timeout + RUN_MARGIN_S,
                    f"Time limit: no result from the Ray node {timeout:g} s after the job "
                    f"started (node lost or unresponsive); stopped",
                )
            elif run.node:
                deadline, why = (
                    run.scheduled_at + START_MARGIN_S,
                    "Time limit: the sandbox on the Ray node did not start; stopped",
                )
            else:
                deadline, why = (
                    run.submitted + self.queue_timeout_s,
                    f"Time limit: no Ray node with {self._needs(run.job)} within "
                    f"{self.queue_timeout_s:g} s (cluster busy, or no node offers one: "
                    f"docs/ray.md)",
                )
            ready, _ = ray.wait([run.ref], timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                run.cancelled = why
                self.cancel(run, force=False)
                return None
            event = json.loads(ray.get(next(run.ref)))
            kind = event.get("event")
            if kind == "node":
                run.node, run.node_id, run.pid = event["node"], event["node_id"], event["pid"]
                run.scheduled_at = time.monotonic()
            elif kind == "accepted":  # a node pool took it (streamed on too)
                run.actor, run.actor_pid = event["actor"], event["pid"]
                emit(event)
            elif kind == "file":
                run.receive(event)
            elif kind == "files":
                run.manifest = (int(event["count"]), int(event["bytes"]))
            elif kind == "report":
                return run.collect(Report.from_json(event["report"]))
            elif kind == "lost":
                raise Lost(event["message"])
            elif kind == "error":
                known = _playground_errors()
                if event["type"] in known:  # same as locally: the sandbox could not run it
                    raise known[event["type"]](event["message"])
                raise SandboxError(f"the Ray task failed: {event['type']}: {event['message']}")
            else:
                if kind == "started":
                    run.started, run.started_at = True, time.monotonic()
                emit(event)

    def cancel(self, run: RayRun, force: bool = True) -> None:
        """Stops the job: politely (the node kills the sandbox), then by killing the task."""
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

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _other_nodes(avoid: str, job: Job) -> bool:
        need = "GPU" if job.device == "gpu" else SLOT
        return any(
            n["Alive"] and n["NodeID"] != avoid and n["Resources"].get(need, 0) >= 1 for n in ray.nodes()
        )

    @staticmethod
    def _needs(job: Job) -> str:
        return "a GPU" if job.device == "gpu" else f"a free {SLOT}"

    @staticmethod
    def _on(run: RayRun) -> str:
        return f" (actor {run.actor[:12]})" if run.actor else ""

    @staticmethod
    def _why(run: RayRun, e: BaseException) -> str:
        where = f" on {run.node}" if run.node else ""
        if run.cancelled:
            return run.cancelled + where
        if isinstance(e, ray.exceptions.TaskCancelledError):
            return f"Cancelled: the Ray task was stopped{where}"
        if isinstance(e, LOST):
            return f"the Ray worker{where} died while running the job ({type(e).__name__})"
        if isinstance(e, StopIteration):
            return f"the Ray task{where} ended without a report"
        first = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
        return f"Killed: the Ray task failed{where}: {type(e).__name__}: {first}".rstrip(": ")

    @staticmethod
    def _failed(run: RayRun, status: str, message: str) -> Report:
        return Report(
            tensorflow_version="unknown",
            device="unknown",
            status=status,  # type: ignore[arg-type]
            error=ErrorInfo(type=status.capitalize(), message=message),
            stdout="",
            warnings=[],
            functions=[],
            executor=ExecutorInfo("ray", run.node or "?", actor=run.actor),
            message=message,
            duration_s=time.monotonic() - run.submitted,
        )


def _replace_export(report: Report, **changes: Any) -> Report:
    assert report.export is not None
    return dataclasses.replace(report, export=dataclasses.replace(report.export, **changes))


def _playground_errors() -> dict[str, type]:
    from ...contract import errors

    return {
        name: cls
        for name, cls in vars(errors).items()
        if isinstance(cls, type) and issubclass(cls, PlaygroundError)
    }
