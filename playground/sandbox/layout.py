"""Decides where a worker's files live: the staged package, its job dir and scratch dir, its uid."""

from __future__ import annotations

import atexit
import fcntl
import functools
import itertools
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass

import playground

from ..contract.errors import SandboxError

FIRST_UID = 61000  # numeric uids need no passwd entry
UID_COUNT = 512
LEASE_DIR = "/run/playground-uids" if os.path.isdir("/run") else "/tmp/playground-uids"
JOB_FILE = "main.py"


_staging = threading.Lock()


def base_dir() -> str:
    with _staging:
        return _base_dir()


def code_dir() -> str:
    with _staging:
        return _code_dir()


@functools.cache
def _base_dir() -> str:
    """One root-owned dir per server process: others may traverse it but not list it."""
    path = tempfile.mkdtemp(prefix="playground-sandbox-")
    os.chmod(path, 0o711)
    atexit.register(shutil.rmtree, path, True)
    return path


def remove_base_dir() -> None:
    """Removes this server's dir now, if it made one (the server stopping on a SIGTERM, whose
    default action would skip atexit)."""
    with _staging:
        if _base_dir.cache_info().currsize:
            shutil.rmtree(_base_dir(), ignore_errors=True)


@functools.cache
def _code_dir() -> str:
    """A world-readable copy of the playground package: the repo may live under /root (0700),
    and a copy means a job can never write into the project tree."""
    target = os.path.join(_base_dir(), "code")
    shutil.copytree(
        os.path.dirname(playground.__file__),
        os.path.join(target, "playground"),
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "ui"),
    )
    for root, _dirs, files in os.walk(target):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    return target


def interpreter_prefix(python: str) -> str | None:
    """The tree a sandbox must bind for this interpreter: its venv, or its install prefix."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    if os.path.exists(os.path.join(venv, "pyvenv.cfg")):
        return venv
    real = os.path.dirname(os.path.dirname(os.path.realpath(python)))
    return None if real.startswith("/usr") else real


@dataclass
class WorkerDirs:
    root: str
    job: str  # holds main.py; root-owned, so the job cannot change its own source
    tmp: str  # scratch for the process fallback (bubblewrap gives a private tmpfs)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


_serial = itertools.count()


def worker_dirs(uid: int | None) -> WorkerDirs:
    root = os.path.join(base_dir(), f"w{next(_serial)}")
    dirs = WorkerDirs(root, os.path.join(root, "job"), os.path.join(root, "tmp"))
    for path in (root, dirs.job, dirs.tmp):
        os.mkdir(path, 0o700)
    if uid is not None:
        # Group = the slot's uid: only this job's uid may read its own source.
        os.chown(root, 0, uid)
        os.chmod(root, 0o750)
        os.chown(dirs.job, 0, uid)
        os.chmod(dirs.job, 0o750)
        os.chown(dirs.tmp, uid, uid)
    return dirs


def room_left() -> int:
    """Free bytes on the file system of the jobs' folders (the server's TMPDIR)."""
    found = os.statvfs(base_dir())
    return found.f_bavail * found.f_frsize


def write_job_file(dirs: WorkerDirs, source: str, uid: int | None) -> str:
    path = os.path.join(dirs.job, JOB_FILE)
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    if uid is not None:
        os.chown(path, 0, uid)
        os.chmod(path, 0o640)
    return path


class UidLeases:
    """Hands out job uids so no two live workers share one, across every playground process on
    the machine (flock per uid): RLIMIT_NPROC and the kill(-1) sweep both work per uid."""

    def __init__(self, first: int = FIRST_UID, count: int = UID_COUNT) -> None:
        self.enabled = os.geteuid() == 0  # not root: there is no uid to drop to
        self._uids = range(first, first + count)
        self._held: dict[int, int] = {}
        self._next = 0  # rotate, so a just-freed uid is reused last
        self._lock = threading.Lock()

    def take(self) -> int | None:
        if not self.enabled:
            return None
        os.makedirs(LEASE_DIR, mode=0o700, exist_ok=True)
        with self._lock:
            for step in range(len(self._uids)):
                uid = self._uids[(self._next + step) % len(self._uids)]
                if uid in self._held:
                    continue
                fd = os.open(os.path.join(LEASE_DIR, str(uid)), os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                self._held[uid] = fd
                self._next = (self._uids.index(uid) + 1) % len(self._uids)
                return uid
        raise SandboxError(f"all {len(self._uids)} sandbox uids are in use")

    def give(self, uid: int | None) -> None:
        with self._lock:
            fd = self._held.pop(uid, None) if uid is not None else None
        if fd is not None:
            os.close(fd)


leases = UidLeases()
