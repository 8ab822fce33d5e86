"""The zygote: imports TensorFlow once inside the sandbox, then forks one fresh worker per job.

A fresh worker costs a TF import (about 4 CPU-s here); a fork of a process that has imported it
costs milliseconds. Each fork gets new namespaces of its own (namespaces.py), so jobs forked from
one zygote can neither see nor touch each other, the zygote, or what an earlier job left.

    zygote (bubblewrap's sandbox, never runs user code; reaps as a subreaper)
      └─ keeper   new user/mount/PID/net/IPC/UTS namespaces, private /tmp /dev/shm /job;
           │      waits for the worker, reports how it ended, and leaves it a zombie
           ├─ init     PID 1 of the new PID namespace: `sleep`, spawned without copying us
           └─ worker   PID 2: /proc, no capabilities; worker.serve(): "ready", one job, report

Only the keeper and the worker are copies of the zygote: each copy of a process this size costs
the machine milliseconds to make and to tear down (bench/bench_sandbox.py: CPU per job), and
PID 1 need not be one. The worker is not PID 1 itself, so the job's signals act as under plain
Python (PID 1 ignores those it has no handler for).

Control socket (--control FD, SOCK_SEQPACKET, one JSON message per packet):
    zygote -> host  {"event": "ready"}                     once TF is imported
    host -> zygote  {"op": "fork", "dir": "f3"} + 3 fds    the job's stdin, events, stderr
    zygote -> host  {"forked": keeper_pid}  or  {"error": "..."}
    host -> zygote  {"op": "kill", "pid": keeper_pid}           SIGKILL, answered at once
    zygote -> host  {"killed": keeper_pid}
    host -> zygote  {"op": "reap", "pid": keeper_pid}           waits until both are gone
    zygote -> host  {"reaped": keeper_pid, "gone": true}
The host closing the socket ends the zygote, and with it (bubblewrap's PID namespace) every job.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import sys
import time

from ..contract.protocol import Exit, as_event
from . import namespaces
from .bwrap import JOB_MOUNT
from .leftovers import exists
from .readable import readable

KILL_WAIT_S = 5.0
FORK_WAIT_S = 15.0  # both stay well under the host's reply timeout (forked.py)
DEVNULL = os.devnull
SLEEP = shutil.which("sleep", path="/usr/bin:/bin") or "/bin/sleep"  # the namespace's PID 1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="playground.sandbox.zygote")
    parser.add_argument("--control", type=int, required=True)
    parser.add_argument("--limits", required=True, help="JSON, see limits.limits_of")
    parser.add_argument("--tmp-mb", type=int, required=True)
    args = parser.parse_args(argv)
    control = socket.socket(fileno=args.control)
    namespaces.prctl(namespaces.PR_SET_CHILD_SUBREAPER, 1)  # orphaned inits come back to us
    os.chdir("/")  # nothing of ours is a fork's working directory
    from .hugepages import collapse_heap
    from .worker import import_engine, warm_up

    import_engine()  # no TF op runs here: thread pools and CUDA start after the fork
    warm_up()  # paid once here, not by every fork (bench/bench_sandbox.py: CPU per job)
    collapse_heap()  # last: what the imports left is what each fork copies
    Zygote(control, json.loads(args.limits), args.tmp_mb).serve()


class Zygote:
    def __init__(self, control: socket.socket, limits: dict, tmp_mb: int) -> None:
        self.control, self.limits, self.tmp_mb = control, limits, tmp_mb
        self.inits: dict[int, int] = {}  # keeper pid -> its init's pid (our namespace)

    def reply(self, message: dict) -> None:
        self.control.send(json.dumps(message).encode())

    def serve(self) -> None:
        from ..contract.protocol import Ready, as_event
        from .worker import pid_namespace

        self.reply(as_event(Ready(os.getpid(), pid_namespace=pid_namespace())))
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.control, 65536, 3)
            except OSError:
                data, fds = b"", []
            if not data:  # the host is gone: so is every job
                os._exit(0)
            try:
                request = json.loads(data)
                if request.get("op") == "fork":
                    self.reply(self.fork(str(request.get("dir", "")), fds))
                elif request.get("op") == "kill":
                    self.reply(self.kill(int(request.get("pid", 0))))
                elif request.get("op") == "reap":
                    self.reply(self.wait_gone(int(request.get("pid", 0))))
                else:
                    self.reply({"error": f"unknown request {request!r:.80}"})
            except Exception as error:  # noqa: BLE001 - a bad request must not end the zygote
                self.reply({"error": f"{type(error).__name__}: {error}"})
            finally:
                for fd in fds:
                    _close(fd)
            self.reap()

    def fork(self, folder: str, fds: list[int]) -> dict:
        if len(fds) != 3 or not folder.isalnum():
            raise ValueError("a fork needs a plain job folder name and three fds")
        job_in, events, stderr = fds
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(report_r)
                _keeper(
                    self.control.fileno(), job_in, events, stderr, report_w, folder, self.limits, self.tmp_mb
                )
            finally:
                os._exit(70)
        os.close(report_w)
        try:
            init = int(os.read(report_r, 32) or b"0") if readable(report_r, FORK_WAIT_S) else 0
        finally:
            os.close(report_r)
        if init <= 0:
            self.wait_gone(pid)
            raise OSError("the forked worker could not isolate itself (see its stderr)")
        self.inits[pid] = init
        return {"forked": pid}

    def kill(self, keeper: int) -> dict:
        """SIGKILL to an init empties its whole PID namespace (the keeper is killed with it)."""
        _sigkill(self.inits.get(keeper, 0), keeper)
        return {"killed": keeper}

    def wait_gone(self, keeper: int) -> dict:
        """Kills, then waits until the keeper and its init are reaped: their namespace is empty."""
        targets = [p for p in (self.inits.pop(keeper, 0), keeper) if p > 0]
        _sigkill(*targets)
        deadline = time.monotonic() + KILL_WAIT_S
        while time.monotonic() < deadline:
            self.reap()
            if not any(exists(p) for p in targets):
                return {"reaped": keeper, "gone": True}
            time.sleep(0.002)
        return {"reaped": keeper, "gone": False}

    def reap(self) -> None:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return


def _keeper(
    control: int, job_in: int, events: int, stderr: int, report: int, folder: str, limits: dict, tmp_mb: int
) -> None:
    """The fork's first process: leaves the zygote's world for namespaces of its own, starts
    their PID 1 and the worker beside it, and reports how the worker ended."""
    os.close(control)  # a job must never reach the socket that hands out jobs
    os.dup2(stderr, 2)
    try:
        namespaces.unshare_all()
        namespaces.private_mounts(tmp_mb, f"{JOB_MOUNT}/{folder}", JOB_MOUNT)
        init = _spawn_init()
    except OSError as error:
        _isolation_failed(error, 71)
    lifeline_r, lifeline_w = os.pipe()
    worker = os.fork()
    if worker == 0:
        os.close(lifeline_w)
        os.close(report)
        _worker(job_in, events, stderr, lifeline_r, limits)
    os.write(report, str(init).encode())
    for fd in (report, job_in, stderr, lifeline_r):  # the keeper keeps the events pipe, to report on
        os.close(fd)
    ended = _wait_leaving_zombie(worker)  # the lifeline stays open while we live
    exit_event = as_event(
        Exit(
            signal=ended.si_status if ended and ended.si_code != os.CLD_EXITED else None,
            code=ended.si_status if ended and ended.si_code == os.CLD_EXITED else None,
        )
    )
    try:
        os.write(events, (json.dumps(exit_event) + "\n").encode())
    except OSError:
        pass
    os.close(events)
    while True:  # until the zygote kills us with init, once the host has read the job's CPU
        signal.pause()


def _wait_leaving_zombie(worker: int) -> os.waitid_result | None:
    """How the worker ended, without reaping it. The host reads a job's CPU from the processes
    in its PID namespace (process.cpu_seconds_of); a zombie still counts there, while a reaped
    worker's time would pass to us, outside it, and the job could hide its CPU by exiting."""
    while True:
        try:
            return os.waitid(os.P_PID, worker, os.WEXITED | os.WNOWAIT)
        except ChildProcessError:
            return None
        except InterruptedError:
            continue


def _spawn_init() -> int:
    """PID 1 of the new PID namespace, the first process made after unshare: `sleep`, started
    with vfork and exec (posix_spawn), so no copy of this process is made for it. It holds the
    namespace and takes no signal from inside it; orphans the job leaves wait there, unreaped,
    until the namespace ends with the job. It gets no descriptor of ours."""
    for fd in _open_fds():
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass  # listdir's own, closed by now
    null = [(os.POSIX_SPAWN_OPEN, fd, DEVNULL, os.O_RDWR, 0) for fd in (0, 1, 2)]
    return os.posix_spawn(SLEEP, ["sleep", "infinity"], {}, file_actions=null)


def _worker(job_in: int, events: int, stderr: int, lifeline: int, limits: dict) -> None:
    """PID 2 of the new namespace: its own /proc, then no capabilities; then the one job."""
    try:
        namespaces.become_job()
    except OSError as error:
        _isolation_failed(error, 72)
    if readable(lifeline, 0):  # EOF: the keeper died before PDEATHSIG was set
        os._exit(0)
    os.close(lifeline)
    os.setsid()
    null = os.open(DEVNULL, os.O_WRONLY)
    for source, target in ((job_in, 0), (null, 1), (stderr, 2)):
        os.dup2(source, target)
    keep = {0, 1, 2, events}
    for fd in _open_fds():  # the zygote's, inherited
        if fd not in keep:
            _close(fd)
    from .worker import Channel, serve

    try:
        serve(Channel(events), limits)
    finally:
        os._exit(1)


def _isolation_failed(error: OSError, code: int) -> None:
    """Said on the worker's own stderr, which the host shows when the worker never got ready."""
    print(f"worker isolation failed: {error}", file=sys.stderr, flush=True)
    os._exit(code)


def _sigkill(*pids: int) -> None:
    for pid in pids:
        if pid > 0:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _open_fds() -> list[int]:
    """This process's descriptors (listdir's own among them, closed by the time it returns)."""
    return [int(name) for name in os.listdir("/proc/self/fd")]


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


if __name__ == "__main__":
    main()
