"""A cgroup around a server a bench starts: the CPU of the page and the sandbox together.

The machine's busy time (/proc/stat) also holds the bench's own clients (subtracted), and
whatever else the machine runs: kernel threads, other tenants' noise. A cgroup counts exactly
the server and every process it starts (the sandbox's zygotes, keepers, workers), kernel work
done on their behalf included, from the scheduler's own clock. It needs root and a writable
cgroup file system; where there is none, the bench says so and reports the busy time alone.

    group = ServerCgroup.make()              # None where no cgroup can be made here
    subprocess.Popen(..., preexec_fn=group.enter)
    group.cpu_s()                            # CPU seconds of everything in it so far
    group.remove()                           # once the server has stopped
"""

from __future__ import annotations

import os
import time
from pathlib import Path

# cgroup v2 (the whole tree, or the hybrid layout's unified part), then v1's cpuacct
V2_ROOTS = (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
V1_ROOTS = (Path("/sys/fs/cgroup/cpuacct"), Path("/sys/fs/cgroup/cpu,cpuacct"))


class ServerCgroup:
    def __init__(self, path: Path, version: int) -> None:
        self.path, self.version = path, version

    @classmethod
    def make(cls, name: str = f"tf-playground-bench-{os.getpid()}") -> ServerCgroup | None:
        candidates = [(root, 2) for root in V2_ROOTS if (root / "cgroup.controllers").exists()]
        candidates += [(root, 1) for root in V1_ROOTS if (root / "cpuacct.usage").exists()]
        for root, version in candidates:
            try:
                (root / name).mkdir(exist_ok=True)
            except OSError:
                continue
            group = cls(root / name, version)
            try:
                group.cpu_s()
            except (OSError, ValueError):
                group.remove()
                continue
            return group
        return None

    def enter(self) -> None:
        """In the server's process before exec (Popen's preexec_fn): it and all it starts."""
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_s(self) -> float:
        if self.version == 2:
            stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines())
            return int(stat["usage_usec"]) / 1e6
        return int((self.path / "cpuacct.usage").read_text()) / 1e9

    def remove(self, wait_s: float = 10.0) -> None:
        """Once its processes are gone: the kernel refuses to remove a cgroup in use, and the
        sandbox's processes may outlive the server by a moment."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.2)
