"""Gives a process forked inside the sandbox namespaces of its own (user, mount, PID, network,
IPC, UTS), private scratch mounts, and then no capabilities at all.

bubblewrap does this for a process it starts; a forked worker (see zygote.py) was not started by
bubblewrap, so it does the same few steps itself through libc. Linux only, no privilege needed:
an unprivileged user namespace owns the new ones.
"""

from __future__ import annotations

import ctypes
import errno
import os

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_CAPBSET_DROP, PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 24, 1, 38
PR_SET_CHILD_SUBREAPER = 36
_CAPS_V3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def mount(source: str, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def prctl(option: int, value: int) -> None:
    _check(_libc.prctl(option, value, 0, 0, 0), f"prctl {option}")


def unshare_all() -> None:
    """New namespaces for this process (its next child is PID 1 of the new PID namespace), with
    this process's own uid and gid as the only ones mapped."""
    uid, gid = os.getuid(), os.getgid()
    _check(
        _libc.unshare(
            CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
        ),
        "unshare",
    )
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)


def private_mounts(tmp_mb: int, job_dir: str, job_mount: str) -> None:
    """Nothing a job writes outlives it or reaches another job: fresh /tmp and /dev/shm, and only
    its own job dir (read-only) where every job expects it. The rest of the tree stays as
    bubblewrap made it: read-only."""
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_mb}m,mode=1777")
    if os.path.isdir("/dev/shm"):
        mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=1m,mode=1777")
    mount(job_dir, job_mount, None, MS_BIND | MS_REC)  # read-only: bwrap's --ro-bind, locked
    os.chdir("/tmp")  # the old cwd is the zygote's /tmp, which every fork would share


def become_job() -> None:
    """In the job's process, inside the new PID namespace: a /proc that shows only this
    namespace, dying with the keeper that forked it, and no way back to any capability
    (bounding set, then capset)."""
    prctl(PR_SET_PDEATHSIG, 9)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    forbid_user_namespaces()
    for cap in range(last_capability() + 1):
        prctl(PR_CAPBSET_DROP, cap)
    drop_capabilities()
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def forbid_user_namespaces() -> None:
    """No user namespace may be made inside this one (what bwrap's --disable-userns does): the
    job gets no fresh set of capabilities to reach kernel code with. Fails closed, as bwrap
    does: a kernel without the per-namespace limit (before 4.9) raises OSError, and the fork
    runs no job."""
    with open("/proc/sys/user/max_user_namespaces", "w") as handle:
        handle.write("0")
    with open("/proc/sys/user/max_user_namespaces") as handle:
        if handle.read().strip() != "0":
            raise OSError(errno.EPERM, "max_user_namespaces did not become 0")


def last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as handle:
            return int(handle.read())
    except (OSError, ValueError):
        return 40  # CAP_CHECKPOINT_RESTORE, Linux 5.9


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_capabilities() -> None:
    """Empties this thread's capability sets (the user namespace gave it every one). Called while
    the process has a single thread, so the whole process is left without any."""
    header, data = _CapHeader(_CAPS_V3, 0), (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")
