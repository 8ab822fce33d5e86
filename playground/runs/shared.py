"""The server's one executor, shared by every page session and every API request: the worker
pool (or Ray) behind the fair queue, so that one client's limits count its page runs and its API
calls together."""

from __future__ import annotations

import importlib
import os
import threading

from ..contract.config import Settings
from . import metrics
from .executor import make_executor
from .fairness import ClientLimits, FairExecutor
from .service import RestartingExecutor

# Seam for tests and benchmarks: "module:callable" returning an Executor, e.g. a replay of
# recorded reports. Unset, the server uses the sandboxed pool from make_executor.
EXECUTOR_ENV = "PLAYGROUND_UI_EXECUTOR"

_lock = threading.Lock()
_executors: dict[str, FairExecutor] = {}


def executor() -> FairExecutor:
    """The process's executor (PLAYGROUND_UI_EXECUTOR's, else the sandboxed pool's), made on
    first use. Keyed by the factory, so a test that changes the variable gets its own."""
    factory = os.environ.get(EXECUTOR_ENV, "")
    with _lock:
        if factory not in _executors:
            _executors[factory] = _make(factory)
        return _executors[factory]


def _make(factory: str) -> FairExecutor:
    settings = Settings.from_env()
    if factory:
        module, _, name = factory.partition(":")
        inner = getattr(importlib.import_module(module), name)()
    else:
        inner = RestartingExecutor(lambda: make_executor(settings))  # a dead pool is rebuilt
    made = FairExecutor(inner, ClientLimits.from_settings(settings), settings.maintenance_file)
    metrics.executor_stats(made.stats)
    return made


def made() -> list[FairExecutor]:
    """The executors made so far (none before the first Run or warm-up)."""
    with _lock:
        return list(_executors.values())
