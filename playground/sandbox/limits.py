"""Decides what a worker may use: the rlimits it applies to itself and the environment it sees."""

from __future__ import annotations

import os
import resource
from collections.abc import Mapping
from typing import Any

from ..contract.config import Settings

# Only these reach a worker; everything else in the server's environment (secrets) stays out.
PASSED_THROUGH = ("LANG", "LC_ALL", "TZ")
# Playground settings the engine reads inside the worker (output cap, tensor size cap).
ENGINE_SETTINGS = ("PLAYGROUND_OUTPUT_CAP_BYTES", "PLAYGROUND_MAX_TENSOR_ELEMENTS")


def worker_env(code_dir: str, tmp_dir: str, parent: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a worker, built from scratch (an allowlist, not a denylist)."""
    source: Mapping[str, str] = os.environ if parent is None else parent
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": tmp_dir,
        "TMPDIR": tmp_dir,
        "PYTHONPATH": code_dir,
        "PYTHONDONTWRITEBYTECODE": "1",  # the code dir is read-only anyway
        "PYTHONNOUSERSITE": "1",
        "LANG": "C.UTF-8",
        # Few threads keep TF's virtual memory under RLIMIT_AS; the plain allocator (oneDNN
        # off) fails a too-large allocation at once instead of retrying for 10 s.
        "TF_NUM_INTRAOP_THREADS": "2",
        "TF_NUM_INTEROP_THREADS": "2",
        "OMP_NUM_THREADS": "2",
        "MALLOC_ARENA_MAX": "2",
        "TF_ENABLE_ONEDNN_OPTS": "0",
        "TF_CPP_MIN_LOG_LEVEL": "1",
        # The seccomp filter refuses file locks (a channel between jobs): HDF5 (Keras's .h5
        # files) then opens its files without one instead of failing.
        "HDF5_USE_FILE_LOCKING": "FALSE",
    }
    for name in PASSED_THROUGH + ENGINE_SETTINGS:
        if source.get(name):
            env[name] = source[name]
    return env


def limits_of(settings: Settings) -> dict[str, Any]:
    """The limits every report shows, in the units a person reads."""
    return {
        "wall_s": settings.timeout_s,
        "demote_after_s": settings.demote_after_s,
        "cpu_s": settings.cpu_s,
        "memory_mb": settings.memory_mb,
        "file_mb": settings.file_mb,
        "tmp_mb": settings.tmp_mb,
        "processes": settings.processes,
        "open_files": settings.open_files,
        "output_bytes": settings.output_cap_bytes,
    }


def apply(limits: dict[str, Any], gpu: bool = False) -> None:
    """Called by the worker itself, after the TF import and before user code: lowering soft and
    hard limits needs no privilege, and user code cannot raise them again."""
    _set(resource.RLIMIT_CORE, 0)
    _set(resource.RLIMIT_FSIZE, limits["file_mb"] << 20)
    _set(resource.RLIMIT_NOFILE, limits["open_files"])
    _set(resource.RLIMIT_NPROC, limits["processes"])
    if not gpu:  # RLIMIT_AS breaks CUDA; GPU workers rely on TF's cap
        _set(resource.RLIMIT_AS, limits["memory_mb"] << 20)
    # RLIMIT_CPU counts the process's whole life: add what the import used already. The hard
    # limit one second later turns an ignored SIGXCPU into SIGKILL.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime) + int(limits["cpu_s"]) + 1
    _set(resource.RLIMIT_CPU, soft, soft + 1)


def _set(which: int, soft: int, hard: int | None = None) -> None:
    hard = soft if hard is None else hard
    _, old_hard = resource.getrlimit(which)
    if old_hard != resource.RLIM_INFINITY:  # never ask for more than we have
        soft, hard = min(soft, old_hard), min(hard, old_hard)
    resource.setrlimit(which, (soft, hard))
