"""A job's own cgroup: its memory and its process count bounded for the job as a whole.

The rlimits (limits.py) bound each process alone: 28 processes of 256 MB each passed a 4 GiB
limit and took a 6 GB container's memory, and memory held in memfds or shmem counts against no
rlimit at all. A cgroup counts every page the job's processes charge (anonymous, shmem, memfd,
page cache) and every process it starts, and when the job is over its memory the kernel kills
inside that group alone.

Where a cgroup can be made (`PLAYGROUND_JOB_CGROUP`):
    auto   cgroup v2, in the server's own group when the memory controller is there and can be
           delegated; else cgroup v1's memory and pids hierarchies, where writable (root); else
           none, and the rlimits alone bound a job (docs/hosting.md says what that leaves open)
    off    none
    PATH   a cgroup v2 directory delegated to the server (systemd's Delegate=yes, a container's
           own cgroup namespace), with the memory and pids controllers in its subtree_control

    jobs = JobCgroups.find(setting)                   # None: none here
    group = jobs.make(memory_mb=4096, processes=256)  # per job
    group.enter(pids)                                 # the job's processes, before its code runs
    group.oom_killed(); group.peak_bytes()            # after it ended
    group.remove()                                    # kills what is left, then rmdir
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

from .leftovers import exists

FS = Path("/sys/fs/cgroup")
PARENT = "playground-jobs"  # made in the server's own group; one child per job
_serial = itertools.count()


class JobCgroup:
    """One job's group: on v2 one directory; on v1 one in each of memory and pids."""

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version, self.dirs = version, dirs

    def enter(self, pids: Iterable[int]) -> None:
        """Moves these processes (all their threads) in; their children are born inside."""
        for pid in pids:
            for path in set(self.dirs.values()):
                try:
                    (path / "cgroup.procs").write_text(str(pid))
                except ProcessLookupError:
                    break  # gone already
                except OSError:
                    continue

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the job for the group's memory limit."""
        memory = self.dirs["memory"]
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        return _field(memory / name, "oom_kill") > 0

    def peak_bytes(self) -> int | None:
        memory = self.dirs["memory"]
        for name in ("memory.peak", "memory.max_usage_in_bytes"):
            try:
                return int((memory / name).read_text())
            except (OSError, ValueError):
                continue
        return None

    def pids(self) -> list[int]:
        group = self.dirs.get("pids") or self.dirs.get("memory")
        try:
            text = (group / "cgroup.procs").read_text() if group else ""
        except OSError:
            return []
        return [int(line) for line in text.split()]

    def remove(self, timeout_s: float = 5.0) -> bool:
        """Kills every process still in the group, then removes it. False if it would not go."""
        kill = self.dirs.get("memory", Path("/nonexistent")) / "cgroup.kill"
        deadline = time.monotonic() + timeout_s
        while True:
            if self.version == 2 and kill.exists():
                try:
                    kill.write_text("1")
                except OSError:
                    pass
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            gone = True
            for path in set(self.dirs.values()):
                try:
                    path.rmdir()
                except FileNotFoundError:
                    pass
                except OSError:
                    gone = False
            if gone or time.monotonic() > deadline:
                return gone
            time.sleep(0.01)


class JobCgroups:
    """Where job groups are made: one parent per controller (v1) or one for both (v2)."""

    def __init__(self, version: int, parents: dict[str, Path]) -> None:
        self.version, self.parents = version, parents

    @property
    def description(self) -> str:
        return f"cgroup v{self.version} ({', '.join(sorted(self.parents))}) per job"

    @classmethod
    def find(cls, setting: str = "auto") -> JobCgroups | None:
        if setting == "off":
            return None
        if setting != "auto":
            return _v2(Path(setting), make_parent=False)
        own = _own_groups()
        if "" in own:  # the unified hierarchy
            found = _v2(_group_dir("cgroup2", "", own[""]), make_parent=True)
            if found is not None:
                return found
        return _v1(own)

    def make(self, memory_mb: int, processes: int) -> JobCgroup | None:
        """A fresh group with the job's limits, or None (the rlimits alone then)."""
        name = f"job-{os.getpid()}-{next(_serial)}"
        dirs: dict[str, Path] = {}
        try:
            for controller, parent in self.parents.items():
                path = parent / name
                path.mkdir()
                dirs[controller] = path
            if self.version == 2:
                _write(dirs["memory"] / "memory.max", memory_mb << 20)
                _write(dirs["memory"] / "memory.swap.max", 0, required=False)
                _write(dirs["memory"] / "memory.oom.group", 1, required=False)  # the whole job goes
                _write(dirs["pids"] / "pids.max", processes)
            else:
                _write(dirs["memory"] / "memory.limit_in_bytes", memory_mb << 20)
                _write(dirs["memory"] / "memory.memsw.limit_in_bytes", memory_mb << 20, required=False)
                _write(dirs["pids"] / "pids.max", processes)
        except OSError:
            JobCgroup(self.version, dirs).remove(timeout_s=0)
            return None
        return JobCgroup(self.version, dirs)


def _v2(group: Path, make_parent: bool) -> JobCgroups | None:
    """v2: the memory and pids controllers must be in `group`'s subtree. A group that still
    holds processes cannot hand controllers down ("no internal processes"), so the parent of
    the jobs is made beside them only where the group allows it."""
    try:
        if not {"memory", "pids"} <= set((group / "cgroup.controllers").read_text().split()):
            return None
        parent = group
        if make_parent:
            (group / "cgroup.subtree_control").write_text("+memory +pids")
            parent = group / PARENT
            parent.mkdir(exist_ok=True)
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
        if not {"memory", "pids"} <= set((parent / "cgroup.subtree_control").read_text().split()):
            return None
        return _usable(JobCgroups(2, {"memory": parent, "pids": parent}))
    except OSError:
        return None


def _v1(own: dict[str, str]) -> JobCgroups | None:
    parents: dict[str, Path] = {}
    for controller in ("memory", "pids"):
        if controller not in own:
            return None
        parent = _group_dir("cgroup", controller, own[controller]) / PARENT
        try:
            parent.mkdir(exist_ok=True)
        except OSError:
            return None
        parents[controller] = parent
    return _usable(JobCgroups(1, parents))


def _usable(jobs: JobCgroups) -> JobCgroups | None:
    """Only a parent where a job's group can be made, limited and removed is used. Groups that
    a server killed outright left behind (its pid is gone) are removed first."""
    _remove_orphans(jobs)
    trial = jobs.make(memory_mb=64, processes=8)
    if trial is None or not trial.remove(timeout_s=1.0):
        return None
    return jobs


def _remove_orphans(jobs: JobCgroups) -> None:
    """Groups named for a server process that no longer exists (`job-PID-N`)."""
    orphans: dict[str, dict[str, Path]] = {}
    for controller, parent in jobs.parents.items():
        try:
            children = [p for p in parent.iterdir() if p.is_dir() and p.name.startswith("job-")]
        except OSError:
            continue
        for child in children:
            pid = child.name.split("-")[1]
            if pid.isdigit() and not exists(int(pid)):
                orphans.setdefault(child.name, {})[controller] = child
    for dirs in orphans.values():
        JobCgroup(jobs.version, dirs).remove(timeout_s=1.0)


def _own_groups() -> dict[str, str]:
    """This process's group per controller ('' for the unified hierarchy), /proc/self/cgroup."""
    found: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def _mount_of(fstype: str, controller: str = "") -> tuple[Path, str]:
    """Where a hierarchy is mounted, and which of its groups is the mount's root
    (/proc/self/mountinfo: a container may see only its own group there)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, extra = before.split(), after.split()
        if len(extra) >= 3 and extra[0] == fstype and (not controller or controller in extra[2].split(",")):
            return Path(fields[4]), fields[3]
    return FS / (controller or "unified"), "/"


def _group_dir(fstype: str, controller: str, path: str) -> Path:
    """The directory of a group named as /proc/self/cgroup names it."""
    mount, root = _mount_of(fstype, controller)
    if root != "/" and (path == root or path.startswith(root + "/")):
        path = path[len(root) :]
    return mount / path.lstrip("/")


def _write(path: Path, value: int, required: bool = True) -> None:
    try:
        path.write_text(str(value))
    except OSError:
        if required:
            raise


def _field(path: Path, name: str) -> int:
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0
