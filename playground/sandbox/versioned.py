"""Routes each job to the worker pool of its TensorFlow version (Job.tf_version).

The default version keeps today's pool (PLAYGROUND_POOL_SIZE). Each extra version gets a pool of
its own, with the same sandbox and the same zygotes, only its venv's interpreter differs:
PLAYGROUND_VERSION_POOLS ("2.15.1=1") sizes the pools started warm with the server; any other
installed version gets a one-worker pool when its first job comes (the job's page is told, and
waits for a TF import), which shuts down after PLAYGROUND_VERSION_IDLE_S without jobs.

Never imports TensorFlow: the versions come from package metadata (playground/contract/versions.py).
"""

from __future__ import annotations

import dataclasses
import threading
import time

from ..contract import versions
from ..contract.config import Settings
from ..contract.errors import SpecError
from ..contract.job import Job, Report
from ..contract.job_control import JobControl
from ..contract.protocol import StartingVersion, as_event
from .pool import OnEvent, WorkerPool

REAP_EVERY_S = 30.0


def pool_sizes(text: str) -> dict[str, int]:
    """ "2.15.1=1, 2.18.1=2" -> {"2.15.1": 1, "2.18.1": 2}; a malformed entry is a SpecError."""
    sizes: dict[str, int] = {}
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        version, _sep, size = item.partition("=")
        if not version.strip() or not size.strip().isdigit():
            raise SpecError(f"PLAYGROUND_VERSION_POOLS: {item!r} is not VERSION=SIZE")
        sizes[version.strip()] = int(size)
    return sizes


def settings_for(settings: Settings, version: versions.TFVersion, size: int) -> Settings:
    return dataclasses.replace(settings, python=version.python, pool_size=size)


class VersionedPool:
    """The local executor: submit(job) runs it in the pool of the job's TF version."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # The default pool also holds the background workers that demoted jobs step aside to.
        self.default = WorkerPool(
            dataclasses.replace(settings, pool_size=settings.pool_size + settings.background_slots)
        )
        self._lock = threading.Lock()
        self._pools: dict[str, WorkerPool] = {}
        self._last_used: dict[str, float] = {}
        self._running: dict[str, int] = {}
        self._closed = threading.Event()
        self._warm = pool_sizes(settings.version_pools)
        for wanted, size in self._warm.items():
            if size > 0:
                version = versions.resolve(settings, wanted)
                if not version.default:
                    self._pools[version.version] = WorkerPool(settings_for(settings, version, size))
        threading.Thread(target=self._reap_idle, name="version-pools", daemon=True).start()

    # What callers read from a WorkerPool: the default's.
    @property
    def size(self) -> int:
        return self.default.size

    @property
    def isolation(self) -> str:
        return self.default.isolation

    def wait_ready(self, count: int | None = None, timeout_s: float = 120.0) -> bool:
        return self.default.wait_ready(count, timeout_s)

    def warming_s(self) -> float | None:
        return self.default.warming_s()

    def stats(self) -> list[dict]:
        return [s for pool in (self.default, *list(self._pools.values())) for s in pool.stats()]

    def submit(self, job: Job, on_event: OnEvent | None = None, control: JobControl | None = None) -> Report:
        if not job.tf_version:  # the default: no need to read every venv's metadata per job
            return self.default.submit(job, on_event, control)
        try:
            version = versions.resolve(self.settings, job.tf_version)
        except versions.VersionError as e:
            return versions.error_report(job, e)
        if version.default:
            return self.default.submit(job, on_event, control)
        pool, new = self._pool_of(version)
        if new and on_event is not None:
            on_event(as_event(StartingVersion(version.version)))
        try:
            return pool.submit(job, on_event, control)
        finally:
            with self._lock:
                self._running[version.version] -= 1
                self._last_used[version.version] = time.monotonic()

    def _pool_of(self, version: versions.TFVersion) -> tuple[WorkerPool, bool]:
        """The version's pool, started now (one worker) if it has none; True if just started."""
        with self._lock:
            pool = self._pools.get(version.version)
            new = pool is None
            if pool is None:
                pool = WorkerPool(settings_for(self.settings, version, 1))
                self._pools[version.version] = pool
            self._running[version.version] = self._running.get(version.version, 0) + 1
            return pool, new

    def _reap_idle(self) -> None:
        """Closes the on-demand pools (those PLAYGROUND_VERSION_POOLS does not keep warm) idle
        for PLAYGROUND_VERSION_IDLE_S: a warm zygote holds hundreds of MB."""
        while not self._closed.wait(min(REAP_EVERY_S, self.settings.version_idle_s)):
            now = time.monotonic()
            idle = []
            with self._lock:
                for name in list(self._pools):
                    if self._warm.get(name, 0) > 0 or self._running.get(name, 0):
                        continue
                    if now - self._last_used.get(name, now) >= self.settings.version_idle_s:
                        idle.append(self._pools.pop(name))
            for pool in idle:
                pool.close()

    def pools(self) -> dict[str, WorkerPool]:
        """The extra versions' pools running now (tests, benchmarks)."""
        with self._lock:
            return dict(self._pools)

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            extra, self._pools = list(self._pools.values()), {}
        for pool in extra:
            pool.close()
        self.default.close()

    def __enter__(self) -> VersionedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
