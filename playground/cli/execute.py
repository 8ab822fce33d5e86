"""Runs one Job for the CLI: through the sandbox (one fresh worker, or the configured executor),
or in this process with --in-process."""

from __future__ import annotations

import dataclasses
import importlib.util

from ..contract.config import Settings
from ..contract.errors import SandboxError
from ..contract.i18n import _
from ..contract.job import Job, Report


def require_tensorflow() -> None:
    """A run in this process imports the engine, and with it TensorFlow: the package installs
    without it (the --server client needs none), so say what to install."""
    if importlib.util.find_spec("tensorflow") is None:
        raise SandboxError(
            _(
                "TensorFlow is not installed in this Python: pip install tensorflow "
                '(or "tf-playground[tf]"), or run on a playground server with '
                "--server URL"
            )
        )


def execute(job: Job, config: Settings, *, in_process: bool = False) -> Report:
    if in_process:
        require_tensorflow()
        from ..engine.pipeline import analyze
        from ..sandbox.exports import export_then_verify

        return export_then_verify(job, analyze)
    if config.executor == "local":
        from ..sandbox import run_once

        return run_once(job, dataclasses.replace(config, timeout_s=job.timeout_s))
    from ..runs.executor import make_executor

    executor = make_executor(config)
    try:
        return executor.submit(job)
    finally:
        executor.close()
