"""Host side of the zygotes (zygote.py): warm sandboxed parents that fork one worker per job.

Each zygote holds one uid and has at most one live worker at a time, so jobs still never share
a uid, an RLIMIT_NPROC budget, or a moment in which one could reach another.
"""

from __future__ import annotations

import glob
import itertools
import json
import math
import os
import socket
import threading
import time

from ..contract import protocol
from ..contract.errors import SandboxError
from . import layout
from .process import (
    SandboxConfig,
    SandboxedWorker,
    kill_group,
    reap_and_free,
    set_priority_of,
    spawn,
)
from .readable import readable
from .stderr_sink import StderrSink
from .zygote import FORK_WAIT_S, KILL_WAIT_S

# How long the host waits for a zygote's answer, per request: each is the zygote's own wait
# for it (zygote.py) plus room for a busy machine. A zygote that does not answer in time is
# frozen or lost, and is killed whole (kill_child): a SIGSTOPped one held a job 33 s past a
# 10 s limit while one wait of 30 s served every request.
REPLY_TIMEOUT_S = {"fork": FORK_WAIT_S + 5.0, "reap": KILL_WAIT_S + 1.0, "kill": 1.0}
NOTE = (
    "each job is forked from a warm zygote into new user, PID, mount, network and IPC "
    "namespaces, with its own /tmp"
)


def fork_wanted(setting: str, isolation: str) -> bool:
    """auto: when bubblewrap isolates, and no GPU is present (CUDA does not survive a fork)."""
    if setting == "off" or isolation != "bubblewrap":
        return False
    return setting == "on" or not glob.glob("/dev/nvidia[0-9]*")


class Zygote:
    """One warm parent in its own bubblewrap sandbox, with one uid for its lifetime."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.uid = layout.leases.take()
        self.dirs = layout.worker_dirs(self.uid)
        self.stderr = StderrSink()
        self._lock = threading.Lock()
        self._serial = itertools.count()
        self.child: ForkedWorker | None = None
        self.pid_namespace = 0
        self._host_pid: int | None = None
        self.ready_at = math.inf  # when TensorFlow was imported (monotonic)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._control = ours
        try:  # at WARMING_NICE while it imports TF: the server and running jobs go first
            self.proc = spawn(
                config,
                self.uid,
                self.dirs,
                "playground.sandbox.zygote",
                [
                    "--control",
                    str(theirs.fileno()),
                    "--tmp-mb",
                    str(config.tmp_mb),
                    "--limits",
                    json.dumps(config.worker_limits),
                ],
                theirs.fileno(),
                self.stderr,
                nice=True,
                nested_userns=True,
            )
        except BaseException:
            self.close()
            raise
        finally:
            theirs.close()
            self.stderr.handed_over()
        if self.proc.stdin is not None:
            self.proc.stdin.close()  # it reads only its control socket

    def wait_ready(self, timeout_s: float) -> None:
        reply = self._receive(timeout_s)
        if reply.get("event") != "ready":
            raise SandboxError(f"the zygote did not start: {self._stderr_tail() or reply}")
        self.pid_namespace = int(reply.get("pid_namespace") or 0)
        self.ready_at = time.monotonic()
        # TF is imported: its forks warm at normal priority, since a refill is what a queued job
        # waits for (the import itself ran at WARMING_NICE, yielding to the server at start).
        # By uid: bwrap and the zygote, as no worker is forked yet.
        set_priority_of(0, self.uid, 0)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def host_pid(self) -> int | None:
        """The zygote's own process as the host sees it (bubblewrap's PID 1 in its namespace
        has the same command line after bwrap's own); found once, by a walk of /proc."""
        if self._host_pid is None:
            self._host_pid = self._find_host_pid()
        return self._host_pid

    def _find_host_pid(self) -> int | None:
        from .leftovers import processes_in_namespace

        for pid in processes_in_namespace(self.pid_namespace) if self.pid_namespace else ():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    argv = handle.read().split(b"\0")
            except OSError:
                continue
            if b"playground.sandbox.zygote" in argv and not argv[0].endswith(b"bwrap"):
                return pid
        return None

    def frozen(self) -> bool:
        """Stopped (SIGSTOP, a debugger): it would answer no request. Looked at before a fork,
        so a frozen zygote is replaced at once instead of holding the refill for FORK_WAIT_S."""
        from .leftovers import state_of

        pid = self.host_pid()
        return pid is not None and state_of(pid) in ("T", "t")

    def _receive(self, timeout_s: float) -> dict:
        self._control.settimeout(timeout_s)
        try:
            data = self._control.recv(65536)
        except (TimeoutError, OSError) as e:
            raise SandboxError(f"the zygote did not answer: {e}") from e
        if not data:
            raise SandboxError(
                "the zygote exited: " + (self._stderr_tail() or f"exit status {self.proc.poll()}")
            )
        return json.loads(data)

    def _ask(self, request: dict, fds: tuple[int, ...] = ()) -> dict:
        timeout_s = REPLY_TIMEOUT_S[request["op"]]
        with self._lock:
            try:
                socket.send_fds(self._control, [json.dumps(request).encode()], list(fds))
            except OSError as e:
                raise SandboxError(f"the zygote went away: {e}") from e
            return self._receive(timeout_s)

    def fork(self) -> ForkedWorker:
        """A fresh worker, warming (it says "ready" on its own pipe)."""
        worker = ForkedWorker(self, f"f{next(self._serial)}")
        job_r, job_w = os.pipe()
        events_r, events_w = os.pipe()
        worker.attach(events_r, job_w)
        try:
            reply = self._ask({"op": "fork", "dir": worker.folder}, (job_r, events_w, worker.stderr.fileno()))
        except BaseException:
            worker.release()
            raise
        finally:
            os.close(job_r)
            os.close(events_w)
            worker.stderr.handed_over()
        if "forked" not in reply:
            tail = worker.stderr_tail()
            worker.release()
            raise SandboxError(
                f"the zygote could not fork a worker: {reply.get('error')}" + (f" ({tail})" if tail else "")
            )
        worker.keeper = int(reply["forked"])
        self.child = worker
        return worker

    def kill_child(self, keeper: int, wait: bool) -> bool:
        """SIGKILL to a worker's namespace; with wait, True once it is empty. Any doubt (no
        answer, or a namespace that would not empty) and the whole zygote goes instead: it
        must never fork the next job while anything of the last one may live. A frozen zygote
        is not asked at all: it would answer nothing (and a job would wait for that)."""
        if self.frozen():
            self.kill()
            return False
        try:
            reply = self._ask({"op": "reap" if wait else "kill", "pid": keeper})
            done = reply.get("gone") is True if wait else "killed" in reply
        except Exception:  # noqa: BLE001 - a broken reply is as bad as none
            done = False
        if not done:
            self.kill()
        return done

    def kill(self) -> None:
        if hasattr(self, "proc"):
            kill_group(self.proc)

    def close(self) -> None:
        """Everything goes: the zygote, its PID namespace, every process of its uid, its dirs."""
        from .leftovers import sweep

        self._control.close()
        self.kill()
        sweep(self.uid)
        reap_and_free(getattr(self, "proc", None), self.uid, self.dirs)
        self.stderr.close()

    def _stderr_tail(self) -> str:
        return self.stderr.tail()


class ForkedWorker(SandboxedWorker):
    """One job's worker forked from a zygote; to the pool it is like a fresh WorkerProcess."""

    def __init__(self, zygote: Zygote, folder: str) -> None:
        super().__init__(zygote.config)
        self.zygote, self.folder = zygote, folder
        self.uid = zygote.uid
        job_dir = os.path.join(zygote.dirs.job, folder)
        os.mkdir(job_dir, 0o700)
        if self.uid is not None:
            os.chown(job_dir, 0, self.uid)
            os.chmod(job_dir, 0o750)
        self.dirs = layout.WorkerDirs(job_dir, job_dir, job_dir)
        self.keeper = 0
        self._job_w = -1
        self._exit: tuple[int | None, int | None] = (None, None)
        self._ended = False
        self._released = False

    def attach(self, events_r: int, job_w: int) -> None:
        self._fd, self._job_w = events_r, job_w

    def _message(self, message: protocol.Message) -> bool:
        if isinstance(message, protocol.Exit):  # the namespace's init: how the worker ended
            # The job holds this pipe too and may forge the line: keep only plausible values.
            sig = message.signal
            self._exit = (sig if sig is not None and 0 < sig < 128 else None, message.code)
            self._ended = True
            return False
        return True

    def alive(self) -> bool:
        """While idle (no job sent yet) a warm worker says nothing: anything to read on its
        pipe then (EOF, the keeper's exit line) means it died, killed from outside."""
        idle = self._job_w >= 0
        return not self._ended and self.zygote.alive() and not (idle and readable(self._fd, 0))

    def fault(self) -> str | None:
        """The keeper writes how the worker ended before the pipe closes, and no code of the
        job can reach the keeper (it is outside the job's PID namespace): a pipe that ended
        without that line lost its keeper, or its whole zygote, to something outside the job."""
        if self._ended:
            return None
        return "keeper" if self.zygote.alive() else "zygote"

    def _send_job(self, line: bytes) -> None:
        with os.fdopen(self._job_w, "wb", closefd=True) as pipe:
            self._job_w = -1
            pipe.write(line)

    def kill(self) -> None:
        """Signals at once; release() then waits for the namespace to be empty."""
        if self.keeper and not self._released:
            self.zygote.kill_child(self.keeper, wait=False)

    def exit_signal(self, timeout_s: float = 2.0) -> int | None:
        """The signal that ended the worker, as its namespace's init saw it."""
        if not self._ended:
            try:
                for _ in self.events(time.monotonic() + timeout_s):
                    pass
            except (TimeoutError, OverflowError, ValueError, OSError):
                pass
        return self._exit[0]

    def exit_code(self) -> int | None:
        return self._exit[1]

    def release(self) -> None:
        """After kill(): once the job's namespace is empty the zygote may fork again."""
        if self.keeper and not self._released:
            self.zygote.kill_child(self.keeper, wait=True)
            self.keeper = 0
        self._released = True
        if self._job_w >= 0:
            os.close(self._job_w)
            self._job_w = -1
        self.dirs.remove()
        self._remove_cgroup()  # its namespace is empty now
        self._close_pipes()
        if self.zygote.child is self:
            self.zygote.child = None


class Zygotes:
    """`size` zygotes, started when first needed; fork() picks one whose last worker is gone."""

    def __init__(self, config: SandboxConfig, size: int, start_timeout_s: float) -> None:
        self.config, self.size, self.start_timeout_s = config, size, start_timeout_s
        self._lock = threading.Lock()
        self._slots: list[Zygote | None] = [None] * size
        self._reserved: set[int] = set()
        self._closed = False

    def fork(self) -> ForkedWorker | None:
        """A warming worker, or None while every zygote still has one (running or warm)."""
        with self._lock:
            free = [
                i
                for i, z in enumerate(self._slots)
                if i not in self._reserved and (z is None or z.child is None)
            ]
            if not free or self._closed:
                return None
            slot = free[0]
            self._reserved.add(slot)
        try:
            zygote = self._slots[slot]
            if zygote is None or not zygote.alive() or zygote.frozen():
                if zygote is not None:
                    zygote.close()
                self._slots[slot] = None
                zygote = Zygote(self.config)
                self._slots[slot] = zygote
                zygote.wait_ready(self.start_timeout_s)
            return zygote.fork()
        except BaseException:
            broken = self._slots[slot]
            self._slots[slot] = None
            if broken is not None:
                broken.close()
            raise
        finally:
            with self._lock:
                self._reserved.discard(slot)
                late = self._slots[slot] if self._closed else None
                if late is not None:
                    self._slots[slot] = None
            if late is not None:
                late.close()  # closed meanwhile: outside the lock, it can be slow

    def running(self) -> list[Zygote]:
        with self._lock:
            return [z for z in self._slots if z is not None]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            zygotes = [z for i, z in enumerate(self._slots) if z is not None and i not in self._reserved]
            self._slots = [z if i in self._reserved else None for i, z in enumerate(self._slots)]
        for zygote in zygotes:
            zygote.close()
