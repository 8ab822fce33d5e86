"""Runs one Job for the CLI: through the sandbox (one fresh worker, or the configured executor),
or in this process with --in-process."""
from __future__ import annotations

import dataclasses

from ..contract.config import Settings
from ..contract.job import Job, Report


def execute(job: Job, config: Settings, *, in_process: bool = False) -> Report:
    if in_process:
        from ..engine import analyze
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
