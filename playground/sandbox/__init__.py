"""Hosted-safe execution: each job runs in a fresh, locked-down worker process, never in ours.

pool.WorkerPool      pre-warmed workers, bounded queue (the app and executor.make_executor)
pool.run_once        one cold worker, no pool (the CLI)
process              spawning a worker: bubblewrap or plain process, dropped uid, env allowlist
forked, zygote       warm zygotes that fork each job's worker (host side, sandbox side)
namespaces           the namespaces and mounts a forked worker gives itself
supervisor           wall clock, event stream, killing everything a job started
outcome              status and message of the final Report
limits, bwrap, layout  rlimits and env; bubblewrap probe and argv; dirs, staged code, uids
worker               the worker's entry point; it and zygote are the only ones importing TF
"""

from __future__ import annotations

from .pool import WorkerPool, run_once

__all__ = ["WorkerPool", "run_once"]
