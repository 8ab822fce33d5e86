"""The one interface front-ends use to run a Job: submit(job) -> Report, never TF in-process.

Implementations: the local sandboxed worker pool (playground.sandbox, the default) and the Ray
executor (playground.runs.ray.executor, PLAYGROUND_EXECUTOR=ray). Tests may pass any object with the
same two methods, e.g. one that returns a recorded report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..contract.config import Settings
from ..contract.errors import LimitError
from ..contract.i18n import _
from ..contract.job import Job, Report

# Events are plain dicts with an "event" key, streamed while a job runs:
#   {"event": "queued", "position": 2}      jobs ahead of this one
#   {"event": "started"}                    a worker took the job
#   {"event": "call_started" | "call_finished", "function", "index", "retraced", "reason", ...}
#   {"event": "timing", "function", "mode", "progress": 0..1}
#   {"event": "demoted", "after_s": 5.0}    still running after 5 s: now at nice 19
#   {"event": "accepted", "actor", "node", "pid"}  Ray: a node's pool actor took the job
#   {"event": "retry", "attempt": 2, "reason"}    Ray: its node or actor was lost; runs again
OnEvent = Callable[[dict], None]


class Executor(Protocol):
    def submit(self, job: Job, on_event: OnEvent | None = None) -> Report: ...

    def close(self) -> None: ...


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

    def submit(self, job: Job, on_event: OnEvent | None = None, **kwargs: object) -> Report:
        from ..contract import versions

        if job.tf_version:
            message = _(
                "PLAYGROUND_EXECUTOR=ray runs the default TensorFlow only; "
                "TensorFlow {version} needs the local executor"
            ).format(version=job.tf_version)
            return versions.error_report(job, versions.VersionError(message))
        return self.inner.submit(job, on_event, **kwargs)  # type: ignore[call-arg]

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)
