"""Finds and kills what a job left behind: every process of its uid, or of its PID namespace,
setsid daemons and reparented grandchildren included."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator


def sweep(uid: int | None) -> None:
    """kill(-1, SIGKILL) as the job's uid reaches every process of that uid, setsid daemons and
    reparented grandchildren included; a forked child does it so the server keeps root."""
    if uid is None:
        return
    pid = os.fork()
    if pid == 0:  # only async-signal-safe calls from here on
        try:
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _pids() -> Iterator[int]:
    return (int(name) for name in os.listdir("/proc") if name.isdigit())


def processes_of(uid: int) -> list[int]:
    found = []
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            found.append(pid)
                        break
        except OSError:
            continue
    return found


def processes_in_namespace(inode: int) -> list[int]:
    """Host pids of every process in the PID namespace with this inode."""
    found = []
    for pid in _pids():
        try:
            if os.stat(f"/proc/{pid}/ns/pid").st_ino == inode:
                found.append(pid)
        except OSError:
            continue
    return found


def host_pid(inode: int, pid_there: int) -> int | None:
    """The host's pid of the process that is `pid_there` in the PID namespace with this inode
    (the last NSpid of /proc/PID/status), or None."""
    for pid in processes_in_namespace(inode):
        try:
            with open(f"/proc/{pid}/status") as handle:
                nspid = next(line for line in handle if line.startswith("NSpid:")).split()
        except (OSError, StopIteration):
            continue
        if int(nspid[-1]) == pid_there:
            return pid
    return None


def sweep_until_gone(uid: int, timeout_s: float = 10.0) -> bool:
    """True once no process of uid is left (zombies being reaped count as gone)."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = [p for p in processes_of(uid) if not _zombie(p)]
        if not alive:
            return True
        if time.monotonic() > deadline:
            return False
        sweep(uid)
        time.sleep(0.02)  # let the kernel finish tearing them down before looking again


def _zombie(pid: int) -> bool:
    return state_of(pid) in (None, "Z")  # gone, or dead and not yet reaped


def state_of(pid: int) -> str | None:
    """A process's state letter in /proc/PID/stat (R, S, T for stopped, Z for a zombie...), or
    None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def exists(pid: int) -> bool:
    """Whether a process with this pid exists (a zombie does), whoever owns it."""
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
