"""The one interface front-ends use to run a Job: submit(job) -> Report, never TF in-process.

Implementations: the local sandboxed worker pool (playground.sandbox, the default) and the Ray
executor (playground.runs.ray.executor, PLAYGROUND_EXECUTOR=ray). Tests may pass any object with the
same two methods, e.g. one that returns a recorded report. `control` (contract/job_control.py)
lets the caller stop the job: the page's Stop button.
"""

from __future__ import annotations

from typing import Protocol

from ..contract.config import Settings
from ..contract.errors import LimitError
from ..contract.i18n import _
from ..contract.job import Job, Report
from ..contract.job_control import JobControl
from ..contract.protocol import OnEvent


class Executor(Protocol):
    def submit(
        self, job: Job, on_event: OnEvent | None = None, control: JobControl | None = None
    ) -> Report: ...

    def close(self) -> None: ...


def warming_s(executor: object) -> float | None:
    """An executor's warm-up still to come, in seconds (a fresh local pool's); None: ready, or an
    executor that does not warm up (Ray's, a test's)."""
    warming = getattr(executor, "warming_s", None)
    return warming() if callable(warming) else None


def stats_of(executor: object) -> list[dict]:
    """An executor's numbers for /metrics (one dict per queue or pool); [] for one without."""
    stats = getattr(executor, "stats", None)
    return stats() if callable(stats) else []


def make_executor(settings: Settings) -> Executor:
    if settings.executor == "local":
        from ..sandbox.versioned import VersionedPool

        return VersionedPool(settings)
    if settings.executor == "ray":
        from .ray.executor import RayExecutor

        return DefaultVersionOnly(RayExecutor.from_settings(settings))
    raise LimitError(f"unknown PLAYGROUND_EXECUTOR {settings.executor!r}: use local or ray")


class DefaultVersionOnly:
    """The Ray executor's nodes run the default TensorFlow only: a job for another version gets
    an error report saying so (the local executor routes versions: sandbox/versioned.py)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner

    def submit(self, job: Job, on_event: OnEvent | None = None, control: JobControl | None = None) -> Report:
        from ..contract import versions

        if job.tf_version:
            message = _(
                "PLAYGROUND_EXECUTOR=ray runs the default TensorFlow only; "
                "TensorFlow {version} needs the local executor"
            ).format(version=job.tf_version)
            return versions.error_report(job, versions.VersionError(message))
        return self.inner.submit(job, on_event, control)

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)
