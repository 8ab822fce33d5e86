"""Starts one sandboxed worker process (bubblewrap or plain process, dropped uid) and talks to it."""

from __future__ import annotations

import collections
import errno
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..contract import protocol
from ..contract.config import Settings
from ..contract.errors import DiskFull, SandboxError
from ..contract.i18n import _
from ..contract.job import Job, job_to_json
from . import bwrap, exports, layout
from . import limits as rlimits
from .job_cgroup import JobCgroup, JobCgroups
from .readable import readable
from .stderr_sink import StderrSink

# bwrap --die-with-parent uses PR_SET_PDEATHSIG, which fires when the *thread* that spawned it
# ends; so every spawn happens on one thread that lives as long as this process.
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-spawn")
WARMING_NICE = 10  # a refilling worker's TF import yields the cores to running jobs
PROGRESS_CAP = 5_000  # progress messages decoded per job; a flood's rest is dropped
log = logging.getLogger("playground.sandbox")
REDUCED = "reduced isolation: not for public hosting"
NO_CGROUP = "no cgroup per job here: memory and processes are bounded per process (rlimits)"


@dataclass(frozen=True)
class SandboxConfig:
    """Everything a spawn needs, decided once per pool (the bubblewrap probe included)."""

    isolation: str  # "bubblewrap" | "process"
    python: str
    limits: dict[str, Any]
    tmp_mb: int
    notes: tuple[str, ...] = ()
    prefix: str | None = None
    worker_limits: dict[str, Any] = field(default_factory=dict)
    cgroups: JobCgroups | None = None  # where each job gets a cgroup of its own, if anywhere

    @classmethod
    def from_settings(cls, settings: Settings) -> SandboxConfig:
        python = settings.python or sys.executable
        layout.code_dir()  # stage the package once, before workers race to
        uid = layout.leases.take()
        try:
            why_not = "" if settings.isolation == "process" else bwrap.probe(uid)
        finally:
            layout.leases.give(uid)
        if settings.isolation == "bubblewrap" and why_not:
            raise SandboxError(f"PLAYGROUND_ISOLATION=bubblewrap, but {why_not}")
        isolation = "process" if why_not or settings.isolation == "process" else "bubblewrap"
        notes = []
        if isolation == "process":
            notes.append(REDUCED + (f" ({why_not})" if why_not else ""))
        if not layout.leases.enabled:
            notes.append(
                "not running as root: jobs share the server's uid (no RLIMIT_NPROC, no uid-wide kill)"
            )
        limits = rlimits.limits_of(settings)
        worker_limits = dict(limits, gpu_memory_mb=settings.gpu_memory_mb)
        cgroups = JobCgroups.find(settings.job_cgroup)
        notes.append(
            f"memory and processes bounded per job: {cgroups.description}"
            if cgroups is not None
            else NO_CGROUP
        )
        return cls(
            isolation,
            python,
            limits,
            settings.tmp_mb,
            tuple(notes),
            layout.interpreter_prefix(python),
            worker_limits,
            cgroups,
        )


def disk_full() -> DiskFull:
    log.warning("sandbox: the jobs' disk is full (%s); Runs are refused until it has room", layout.base_dir())
    return DiskFull(
        _(
            "The server's temporary disk is full, so no job can start now. Your code was not "
            "the cause, and the operator has been told; try again in a few minutes."
        ),
        retry_after_s=60.0,
    )


class WorkerGone(SandboxError):
    """The worker was dead before the job reached it: no code of the job ran, so the pool may
    hand the job to another worker."""


class SandboxedWorker:
    """The host's end of one job's worker, however it was started: its job dir, its protocol
    pipe, its stderr. Subclasses say how the job reaches it and how it is stopped (WorkerProcess,
    forked.ForkedWorker: each defines every method here that raises NotImplementedError)."""

    uid: int | None
    dirs: layout.WorkerDirs

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.stderr = StderrSink()  # a pipe, never a file the job could grow
        self._reader = protocol.LineReader()
        self._pending: collections.deque[bytes] = collections.deque()  # read, not decoded
        self._progress = 0
        self._fd = -1
        self.pid: int | None = None
        self.pid_namespace = 0
        self.gpus = 0
        self.cgroup: JobCgroup | None = None

    def _inside(self, host_path: str, mount: str) -> str:
        """Where the worker sees one of its dirs."""
        return mount if self.config.isolation == "bubblewrap" else host_path

    def wait_ready(self, timeout_s: float) -> None:
        for message in self.events(time.monotonic() + timeout_s):
            if isinstance(message, protocol.Ready):  # said before any user code ran
                self.pid, self.gpus = message.pid, message.gpus
                self.pid_namespace = message.pid_namespace
                return
        raise SandboxError(
            "the sandbox worker did not start: " + (self.stderr_tail() or f"exit status {self.exit_code()}")
        )

    def start_job(self, job: Job) -> Job:
        """Writes the source where the job can read but not change it, then hands it over. The
        job keeps the user's file name: tracebacks name their file, not the sandbox's path.
        The worker's processes enter the job's own cgroup first, where there is one."""
        self.prioritise()
        self._enter_cgroup()
        try:
            layout.write_job_file(self.dirs, job.source, self.uid)
        except OSError as error:
            if error.errno in (errno.ENOSPC, errno.EDQUOT):
                raise disk_full() from error
            raise
        job = exports.attach(job, self.dirs.job, self._inside(self.dirs.job, bwrap.JOB_MOUNT), self.uid)
        try:
            self._send_job((job_to_json(job) + "\n").encode())
        except OSError as e:
            raise WorkerGone(f"the sandbox worker went away before the job: {e}") from e
        return job

    def _send_job(self, line: bytes) -> None:
        raise NotImplementedError

    def _enter_cgroup(self) -> None:
        cgroups, limits = self.config.cgroups, self.config.limits
        if cgroups is None:
            return
        self.cgroup = cgroups.make(limits["memory_mb"], limits["processes"])
        if self.cgroup is not None:
            self.cgroup.enter(sandbox_pids(self.pid_namespace, self.uid) or ())

    def oom_killed(self) -> bool:
        """Whether the kernel killed the job for its cgroup's memory limit."""
        return self.cgroup is not None and self.cgroup.oom_killed()

    def memory_peak_mb(self) -> float | None:
        peak = self.cgroup.peak_bytes() if self.cgroup is not None else None
        return None if peak is None else round(peak / (1 << 20), 1)

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    def prioritise(self) -> None:
        """Called as the job starts; a worker that warmed at WARMING_NICE gets normal priority
        back (a forked worker comes from a zygote already back at normal: nothing to do)."""

    def set_priority(self, nice: int) -> None:
        set_priority_of(self.pid_namespace, self.uid, nice)

    def cpu_seconds(self) -> float | None:
        return cpu_seconds_of(self.pid_namespace, self.uid)

    def exit_code(self) -> int | None:
        raise NotImplementedError

    def fault(self) -> str | None:
        """Which part of the sandbox around the job died from outside it, once the job has
        ended without a report (None: none did, or this kind of worker cannot tell)."""
        return None

    def alive(self) -> bool:
        """False once the worker has died (while idle, a pool replaces it)."""
        raise NotImplementedError

    def kill(self) -> None:
        """Stops the job and everything it started; release() then cleans up."""
        raise NotImplementedError

    def exit_signal(self, timeout_s: float = 2.0) -> int | None:
        """The signal that ended the worker, if any."""
        raise NotImplementedError

    def release(self) -> None:
        """After kill(): frees what the worker held (its uid, its dirs, its pipes)."""
        raise NotImplementedError

    def _message(self, message: protocol.Message) -> bool:
        """True if a protocol message is for the caller of events(); False if it was ours."""
        return True

    def events(self, deadline: float) -> Iterator[protocol.Message]:
        """The worker's messages, decoded and bounded (contract/protocol.py), until EOF.

        Raises TimeoutError at the deadline, which is checked on every read and every few
        lines, so nothing the job writes keeps the host past it; StreamTooLarge past the job's
        byte budget; MalformedMessage for a message that does not fit its type. Past
        PROGRESS_CAP progress messages, the rest are dropped unparsed."""
        while True:
            decoded = 0
            while self._pending:
                decoded += 1
                if decoded % 256 == 0 and time.monotonic() > deadline:
                    raise TimeoutError()
                line = self._pending.popleft()
                skip = protocol.PROGRESS if self._progress >= PROGRESS_CAP else ()
                message = protocol.parse(line, skip)
                if message is None or not self._message(message):
                    continue
                self._progress += isinstance(message, protocol.PROGRESS)
                yield message
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError()
            if not readable(self._fd, left):
                continue
            chunk = os.read(self._fd, 1 << 20)
            if not chunk:
                return
            self._pending.extend(self._reader.feed(chunk))

    def stderr_tail(self, size: int = 4000) -> str:
        return self.stderr.tail(size)

    def _close_pipes(self) -> None:
        for closer in (lambda: os.close(self._fd), self.stderr.close):
            try:
                closer()
            except (OSError, AttributeError):
                pass


def spawn(
    config: SandboxConfig,
    uid: int | None,
    dirs: layout.WorkerDirs,
    module: str,
    arguments: list[str],
    pass_fd: int,
    stderr: object,
    nice: bool,
    nested_userns: bool = False,
) -> subprocess.Popen:
    """Starts `python -m module` in the sandbox (bubblewrap, or a plain process as uid), on the
    one long-lived spawner thread; pass_fd is the only fd it inherits besides stdio."""
    command = [config.python, "-m", module, *arguments]
    if config.isolation == "bubblewrap":
        command = bwrap.argv(
            command,
            rlimits.worker_env(bwrap.CODE_MOUNT, "/tmp"),
            prefix=config.prefix,
            code_dir=layout.code_dir(),
            job_dir=dirs.job,
            tmp_mb=config.tmp_mb,
            nested_userns=nested_userns,
        )
        env: dict[str, str] = {}
    else:
        env = rlimits.worker_env(layout.code_dir(), dirs.tmp)
    return _SPAWNER.submit(
        subprocess.Popen,  # type: ignore[arg-type]  # mypy cannot match typeshed's Popen overloads to submit's ParamSpec
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        pass_fds=(pass_fd,),
        start_new_session=True,
        env=env,
        cwd=dirs.tmp,
        **bwrap.as_user(uid),
        # Only root can restore the priority when the job starts, so only root lowers it.
        preexec_fn=_yield_cpu if nice and uid is not None else None,
    ).result()


class WorkerProcess(SandboxedWorker):
    """One fresh worker: spawn, wait until warm (a whole TF import), take one job, die."""

    def __init__(self, config: SandboxConfig) -> None:
        super().__init__(config)
        self.uid = layout.leases.take()
        self.dirs = layout.worker_dirs(self.uid)
        read_fd, write_fd = os.pipe()
        self._fd = read_fd
        try:
            self.proc = spawn(
                config,
                self.uid,
                self.dirs,
                "playground.sandbox.worker",
                ["--fd", str(write_fd), "--limits", json.dumps(config.worker_limits)],
                write_fd,
                self.stderr,
                nice=True,
            )
        except BaseException:
            self.release()
            raise
        finally:
            os.close(write_fd)
            self.stderr.handed_over()
        self.started = time.monotonic()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _send_job(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line)
        self.proc.stdin.close()

    def prioritise(self) -> None:
        self.set_priority(0)  # it was spawned, and imported TF, at WARMING_NICE

    def kill(self) -> None:
        """Stops everything the job started: the PID namespace dies with bwrap, a setsid
        child of the process fallback dies by the uid-wide sweep."""
        kill_group(self.proc)
        from .leftovers import sweep

        sweep(self.uid)

    def exit_signal(self, timeout_s: float = 2.0) -> int | None:
        """The signal that ended the worker, if any (bwrap reports it as 128 + signal)."""
        try:
            code = self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return None
        if code < 0:
            return -code
        if self.config.isolation == "bubblewrap" and code > 128:
            return code - 128
        return None

    def exit_code(self) -> int | None:
        return self.proc.returncode if hasattr(self, "proc") else None

    def release(self) -> None:
        """After kill(): reap, check nothing of the uid is left, free the uid and the dirs."""
        reap_and_free(getattr(self, "proc", None), self.uid, self.dirs)
        self._remove_cgroup()
        self._close_pipes()


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL to a sandbox's process group, only while it is unreaped: a reaped pid may belong
    to someone else by now."""
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass


def reap_and_free(proc: subprocess.Popen | None, uid: int | None, dirs: layout.WorkerDirs) -> None:
    """After a kill: reaps the sandbox, frees its uid once no process of it is left (a uid with
    survivors is never handed out again), and removes its dirs."""
    from .leftovers import sweep_until_gone

    if proc is not None:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
    if uid is not None and sweep_until_gone(uid):
        layout.leases.give(uid)
    dirs.remove()


def sandbox_pids(pid_namespace: int, uid: int | None) -> list[int] | None:
    """Host pids of every process of one sandbox: its own PID namespace where it has one, else
    every process of its uid; None for an unsandboxed worker, which shares this uid."""
    from .leftovers import processes_in_namespace, processes_of

    if pid_namespace and pid_namespace != _own_pid_namespace():
        return processes_in_namespace(pid_namespace)
    return processes_of(uid) if uid is not None else None


def set_priority_of(pid_namespace: int, uid: int | None, nice: int) -> None:
    """Every thread of every process of one sandbox at this niceness (the host is root)."""
    for pid in sandbox_pids(pid_namespace, uid) or ():
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                os.setpriority(os.PRIO_PROCESS, int(tid), nice)
            except OSError:
                pass


def cpu_seconds_of(pid_namespace: int, uid: int | None) -> float | None:
    """CPU seconds the sandbox's processes used, read by the host from /proc: each live (or
    zombie) process's own time plus what it reaped of its children. None when unknown."""
    pids = sandbox_pids(pid_namespace, uid)
    if pids is None:
        return None
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        ticks += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _own_pid_namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _yield_cpu() -> None:
    """In the child before exec: its threads, and bwrap's children, inherit the niceness."""
    os.nice(WARMING_NICE)
