"""The node side of the Ray executor: one NodePool actor per node owns a warm WorkerPool, and
each job is a Ray task that Ray places on a node with a free slot and that hands the job to
that node's actor.

    driver ─ run_job task (num_cpus=1: Ray picks the node) ─> NodePool of that node
                                                               └─ WorkerPool ─ zygote ─ fork

One actor per node, not per slot: the WorkerPool already is the per-node unit (zygotes, uid
leases, refills, the fresh-worker export check), so the actor is a thin shell around exactly the
local sandbox. Slots are a Ray resource of their own, `playground_slot`: a node started with N of
them runs at most N job tasks and its pool has N zygotes, so Ray's scheduler, not ours, sends
each job to a node with a free slot, and the autoscaler sees queued jobs as pending slot demand.
Not CPUs: Ray lends a task's CPU to others while the task waits in ray.get (here, for the
actor's events), so a CPU would admit any number of jobs; a custom resource stays held. GPU jobs
keep a cold worker per job (CUDA does not survive a fork), still inside the task, never in the
shared Ray worker; they hold their GPU.

Events, one JSON line each, from the task to the driver:
    {"event": "node", "node", "node_id", "pid"}       where the task landed
    {"event": "accepted", "actor", "node", "pid"}     the pool actor took the job
    the sandbox's own events ("queued", "started", "call_started", ...)
    {"event": "file", "path", "data"} ... {"event": "files", "count", "bytes"}   the export
    {"event": "report", "report"} | {"event": "error", "type", "message"}
    {"event": "lost", "message"}                      the actor died; the driver may retry
"""

from __future__ import annotations

import base64
import dataclasses
import fcntl
import hashlib
import json
import os
import queue
import shutil
import signal
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import ray
import ray.exceptions
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ...contract.config import Settings
from ...contract.errors import PlaygroundError, SandboxError
from ...contract.job import ExecutorInfo, Job, Report, job_from_json
from ...contract.job_control import JobControl
from ...contract.protocol import Accepted, OnEvent, as_event
from ...sandbox import WorkerPool
from ...sandbox.readable import readable

NAMESPACE = "playground"
SLOT = "playground_slot"  # the Ray resource a node offers per concurrent job
POLL_S = 0.25  # how often a waiting stream checks that its caller still lives
ACTOR_TRIES = 3  # getting a live actor, while the job has not been accepted
CHUNK_BYTES = 512 << 10
SCRATCH = "playground-ray"  # node pools' temp dirs, swept once their actor is dead


def node_name(node_id: str) -> str:
    """Host, address and node id: two Ray nodes may share a host (and a test runs two)."""
    return f"{socket.gethostname()} ({ray.util.get_node_ip_address()}, node {node_id[:8]})"


def pool_name(node_id: str, settings: Settings) -> str:
    """One pool per node and per set of limits (the limits are baked into its zygotes)."""
    fields = {
        k: v
        for k, v in dataclasses.asdict(settings).items()
        if k not in ("pool_size", "queue_limit", "executor")
    }
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:10]
    return f"playground-pool-{node_id[:16]}-{digest}"


class NodePool:
    """Owns this node's WorkerPool; run() streams one job through it."""

    def __init__(self, settings: Settings, node: str, slots: int) -> None:
        self._scratch = claim_scratch()
        self.settings = dataclasses.replace(
            settings, executor="local", pool_size=slots, queue_limit=max(16, 4 * slots)
        )
        self.node, self.slots = node, slots
        actor_id = ray.get_runtime_context().get_actor_id()
        assert actor_id is not None  # None only outside an actor; this class runs as NodePoolActor
        self.actor_id = actor_id
        self._lock = threading.Lock()
        self._jobs: dict[str, Any] = {}  # key -> the pool's JobControl
        self._peak = 0  # most jobs held at once: at most the slots
        self._idle_since = time.monotonic()
        self._closing = False
        self._creating = threading.Lock()
        self._pool: WorkerPool | None = None
        try:
            self._new_pool(None)  # its zygotes warm up from now on
        except SandboxError:
            pass  # the first job tries again and says why
        threading.Thread(target=self._exit_when_idle, daemon=True).start()

    @ray.method(num_returns="streaming")
    def run(self, job_json: str, caller_pid: int, key: str) -> Iterator[str]:
        control = JobControl()
        with self._lock:
            closing = self._closing
            if not closing:
                self._jobs[key] = control
                self._peak = max(self._peak, len(self._jobs))
        if closing:  # idle exit under way: ask for a new actor
            yield json.dumps({"event": "closing"})
            return
        try:
            yield json.dumps(as_event(Accepted(self.actor_id, self.node, os.getpid())))
            job = job_from_json(job_json)
            with CallerWatch(caller_pid) as caller:
                yield from stream(
                    lambda emit: self._submit(job, emit, control), control.stop, caller.gone, self._as_ray
                )
        finally:
            with self._lock:
                self._jobs.pop(key, None)
                self._idle_since = time.monotonic()

    @ray.method(concurrency_group="control")
    def stop(self, key: str) -> bool:
        """Kills the job's worker (its task was cancelled)."""
        with self._lock:
            control = self._jobs.get(key)
        if control is not None:
            control.stop.set()
        return control is not None

    @ray.method(concurrency_group="control")
    def wait_ready(self, count: int | None = None, timeout_s: float = 120.0) -> bool:
        """Blocks until `count` (default: every slot) warm workers wait (benchmarks)."""
        return self._pool is not None and self._pool.wait_ready(count, timeout_s)

    @ray.method(concurrency_group="control")
    def info(self) -> dict:
        """Who this actor is, and for each job it runs now, its worker's uid and the host
        pids of the job's own PID namespace (audits, and the cancel test)."""
        with self._lock:
            uids = {key: control.uid for key, control in self._jobs.items()}
            peak = self._peak
        return {
            "actor": self.actor_id,
            "node": self.node,
            "pid": os.getpid(),
            "slots": self.slots,
            "peak": peak,
            "jobs": {key: {"uid": uid, "pids": job_pids(uid)} for key, uid in uids.items()},
        }

    def _submit(self, job: Job, emit: OnEvent, control: Any) -> Report:
        pool = self._pool or self._new_pool(None)
        try:
            return pool.submit(job, emit, control)
        except SandboxError:  # it cannot start workers: replaced once per job, as in the app
            return self._new_pool(pool).submit(job, emit, control)

    def _new_pool(self, broken: WorkerPool | None) -> WorkerPool:
        """A new pool in place of `broken` (None: of none); a SandboxError says why not."""
        with self._creating:
            # None: no pool yet, or another job's replacement failed to start (try again here)
            if self._pool is None or self._pool is broken:
                if self._pool is not None:
                    self._pool.close()
                self._pool = None
                self._pool = WorkerPool(self.settings)
            return self._pool

    def _as_ray(self, report: Report) -> Report:
        warm = report.executor.warm if report.executor else None
        return dataclasses.replace(
            report, executor=ExecutorInfo("ray", self.node, actor=self.actor_id, warm=warm)
        )

    def _exit_when_idle(self) -> None:
        """Lets an autoscaler remove the node: it counts a node with an actor as busy."""
        idle_s = self.settings.ray_idle_s
        while True:
            time.sleep(max(0.5, min(30.0, idle_s / 4)))
            with self._lock:
                if self._jobs or time.monotonic() - self._idle_since < idle_s:
                    continue
                self._closing = True
            if self._pool is not None:
                self._pool.close()
            shutil.rmtree(self._scratch, ignore_errors=True)  # no atexit after ray.kill
            ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
            return


NodePoolActor = ray.remote(concurrency_groups={"control": 2})(NodePool)  # type: ignore[call-overload, unused-ignore]  # Ray's stubs lack concurrency_groups


def claim_scratch() -> str:
    """A dir of this actor's own for every temp dir it makes (sandbox dirs, exports), held
    by an flock for its lifetime. An actor killed outright never cleans up, so each new one
    removes the dirs of those whose lock is free."""
    root = os.path.join(tempfile.gettempdir(), SCRATCH)
    os.makedirs(root, mode=0o711, exist_ok=True)
    os.chmod(root, 0o711)  # job uids traverse it to their own dirs
    for name in os.listdir(root):
        old = os.path.join(root, name)
        try:
            fd = os.open(os.path.join(old, "lock"), os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: its actor is dead
            shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass  # held by a live actor
        finally:
            os.close(fd)
    mine = tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root)
    os.chmod(mine, 0o711)
    fd = os.open(os.path.join(mine, "lock"), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # kept open until the process ends
    tempfile.tempdir = mine  # layout and exports use mkdtemp
    return mine


def stream(
    submit: Callable[[OnEvent], Report],
    stop: threading.Event,
    caller_gone: Callable[[], bool],
    finish: Callable[[Report], Report],
) -> Iterator[str]:
    """Runs submit on a thread (it blocks) and yields its events as JSON lines, then the
    export's files, then the report. A caller that is gone, or a consumer that stops reading,
    sets `stop`, which kills the job's worker."""
    events: queue.SimpleQueue = queue.SimpleQueue()

    def work() -> None:
        try:
            report = ship_export(finish(submit(events.put)), events.put, stop)
            events.put({"event": "report", "report": report.to_json()})
        except PlaygroundError as e:
            events.put({"event": "error", "type": type(e).__name__, "message": str(e)})
        except BaseException as e:  # noqa: BLE001 - reported, not lost: the driver turns it into a Report
            events.put({"event": "error", "type": type(e).__name__, "message": str(e)[:2000]})

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    try:
        while True:
            try:
                event = events.get(timeout=POLL_S)
            except queue.Empty:
                if caller_gone():
                    stop.set()
                continue
            yield json.dumps(event)
            if event.get("event") in ("report", "error"):
                return
    finally:
        if thread.is_alive():
            stop.set()


def ship_export(report: Report, put: OnEvent, stop: threading.Event) -> Report:
    """Streams the node's export dir (regular files only, as the local pool collected it) as
    file events plus a manifest, then removes it: the driver gets the files, not a node path."""
    export = report.export
    if export is None or not export.path:
        return report
    from ...sandbox.exports import walk_files

    count = size = 0
    try:
        for rel, handle in walk_files(export.path):
            with handle:
                put({"event": "file", "path": rel, "data": ""})
                count += 1
                while (chunk := handle.read(CHUNK_BYTES)) and not stop.is_set():
                    put({"event": "file", "path": rel, "data": base64.b64encode(chunk).decode()})
                    size += len(chunk)
        put({"event": "files", "count": count, "bytes": size})
    finally:
        shutil.rmtree(export.path, ignore_errors=True)
    return dataclasses.replace(report, export=dataclasses.replace(export, path=""))


class CallerWatch:
    """Tells when the job's task (a process on this node) has died, by a pidfd: a force-
    cancelled task, a crashed Ray worker or a dead driver's task all end up here."""

    def __init__(self, pid: int) -> None:
        try:
            self.fd = os.pidfd_open(pid)
        except ProcessLookupError:
            self.fd = -2  # already gone
        except OSError:
            self.fd = -1  # cannot watch (another PID namespace): trust it

    def gone(self) -> bool:
        if self.fd < 0:
            return self.fd == -2
        return readable(self.fd, 0)

    def __enter__(self) -> CallerWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)


def job_pids(uid: int | None) -> list[int]:
    """Host pids of the uid's processes that live in a job's own PID namespace (a forked
    worker's init and all under it), not its zygote. A zygote has one worker at a time."""
    from ...sandbox.leftovers import processes_of

    found: list[int] = []
    if uid is not None:
        for pid in processes_of(uid):
            try:
                with open(f"/proc/{pid}/status") as f:
                    levels = next((len(line.split()) - 1 for line in f if line.startswith("NSpid:")), 0)
            except OSError:
                continue
            if levels >= 3:  # host, the zygote's sandbox, the job's own
                found.append(pid)
    return sorted(found)


# ---- the task: runs in an ordinary Ray worker on the node Ray chose ----

_actors: dict[str, Any] = {}  # this worker process's handles, by pool name


def run_job(job_json: str, settings: Settings) -> Iterator[str]:
    """The Ray task body: finds this node's pool actor and streams the job through it."""
    node_id = ray.get_runtime_context().get_node_id()
    yield json.dumps({"event": "node", "node": node_name(node_id), "node_id": node_id, "pid": os.getpid()})
    job = job_from_json(job_json)
    if job.device == "gpu":
        yield from _cold(job, settings, node_id)
        return
    key = uuid.uuid4().hex
    for tries in range(1, ACTOR_TRIES + 1):
        name, actor = _node_pool(node_id, settings)
        accepted = False
        try:
            for ref in actor.run.remote(job_json, os.getpid(), key):
                line = ray.get(ref)
                if not accepted and json.loads(line).get("event") == "closing":
                    break  # it is exiting idle: get a new one
                accepted = True
                yield line
            else:
                return
        except ray.exceptions.RayActorError as e:
            if accepted or tries == ACTOR_TRIES:
                yield json.dumps(
                    {
                        "event": "lost",
                        "message": (f"the pool actor on {node_name(node_id)} died ({type(e).__name__})"),
                    }
                )
                return
        except BaseException:
            actor.stop.remote(key)  # a polite ray.cancel: the actor kills the job's worker
            raise
        _actors.pop(name, None)
        time.sleep(0.2 * tries)  # a dead actor's name is released a moment later
    yield json.dumps(
        {"event": "lost", "message": f"no pool actor on {node_name(node_id)} would take the job"}
    )


def _node_pool(node_id: str, settings: Settings) -> tuple[str, Any]:
    """This node's pool actor: found by name, or created pinned to this node. Detached, so it
    outlives the task (and the driver) and stays warm for the next job."""
    name = pool_name(node_id, settings)
    if name not in _actors:
        slots = _slots(node_id)
        _actors[name] = NodePoolActor.options(
            name=name,
            namespace=NAMESPACE,
            get_if_exists=True,
            lifetime="detached",
            num_cpus=0,
            max_restarts=0,
            max_concurrency=4 * slots + 4,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(settings, node_name(node_id), slots)
    return name, _actors[name]


def _slots(node_id: str) -> int:
    for node in ray.nodes():
        if node["NodeID"] == node_id:
            return max(1, int(node["Resources"].get(SLOT, 1)))
    return 1


def _cold(job: Job, settings: Settings, node_id: str) -> Iterator[str]:
    """A GPU job: one fresh sandboxed worker in this task, as the CLI runs it."""
    from ...sandbox import run_once

    node = node_name(node_id)
    yield json.dumps(as_event(Accepted("", node, os.getpid())))
    before = _children()
    try:
        yield from stream(
            lambda emit: run_once(job, settings, emit),
            threading.Event(),
            lambda: False,
            lambda r: dataclasses.replace(r, executor=ExecutorInfo("ray", node, warm=False)),
        )
    except BaseException:
        # A polite ray.cancel lands here: kill the sandbox so run_once sweeps its uid.
        for pid in _children() - before:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        raise


def _children() -> set[int]:
    pids: set[int] = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids.update(int(p) for p in f.read().split())
        except OSError:
            pass
    return pids
