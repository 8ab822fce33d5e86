"""Settings from environment variables, each with its default; the README lists them all."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import Any


def _env(name: str, default: object) -> object:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if isinstance(default, bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    return raw


@dataclass(frozen=True)
class Settings:
    # Engine
    max_tensor_elements: int = 1 << 24  # PLAYGROUND_MAX_TENSOR_ELEMENTS
    output_cap_bytes: int = 1 << 20  # PLAYGROUND_OUTPUT_CAP_BYTES
    gpu_memory_mb: int = 2048  # PLAYGROUND_GPU_MEMORY_MB, per worker
    # Sandbox and pool
    executor: str = "local"  # PLAYGROUND_EXECUTOR: local | ray
    pool_size: int = 2  # PLAYGROUND_POOL_SIZE
    queue_limit: int = 16  # PLAYGROUND_QUEUE_LIMIT
    timeout_s: float = 30.0  # PLAYGROUND_TIMEOUT_S, wall clock per job
    cpu_s: int = 60  # PLAYGROUND_CPU_S, CPU seconds per job
    memory_mb: int = 4096  # PLAYGROUND_MEMORY_MB, address space per job
    file_mb: int = 64  # PLAYGROUND_FILE_MB, largest file a job writes
    tmp_mb: int = 64  # PLAYGROUND_TMP_MB, the job's private /tmp
    demote_after_s: float = 5.0  # PLAYGROUND_DEMOTE_AFTER_S, then nice 19; 0: never
    background_workers: int = 1  # PLAYGROUND_BACKGROUND_WORKERS, for demoted jobs
    processes: int = 256  # PLAYGROUND_PROCESSES, per job uid (threads too)
    open_files: int = 256  # PLAYGROUND_OPEN_FILES
    isolation: str = "auto"  # PLAYGROUND_ISOLATION: auto | bubblewrap | process
    fork_workers: str = "auto"  # PLAYGROUND_FORK_WORKERS: auto | on | off
    job_cgroup: str = "auto"  # PLAYGROUND_JOB_CGROUP: auto | off | a delegated cgroup v2 dir
    python: str = ""  # PLAYGROUND_PYTHON, worker interpreter
    tf_venvs: str = ""  # PLAYGROUND_TF_VENVS, extra TF venvs (a,b)
    version_pools: str = ""  # PLAYGROUND_VERSION_POOLS, "2.15.1=1" warm zygotes
    version_idle_s: float = 600.0  # PLAYGROUND_VERSION_IDLE_S, an extra pool's idle life
    ray_idle_s: float = 600.0  # PLAYGROUND_RAY_IDLE_S, a node pool's idle life
    # Service (the hosted app)
    max_source_bytes: int = 64 * 1024  # PLAYGROUND_MAX_SOURCE_BYTES
    max_calls: int = 50  # PLAYGROUND_MAX_CALLS
    max_timing_budget_s: float = 10.0  # PLAYGROUND_MAX_TIMING_BUDGET_S
    runs_per_minute: int = 20  # PLAYGROUND_RUNS_PER_MINUTE, per client
    # Fairness between clients (playground/runs/fairness.py)
    client_ip_header: str = ""  # PLAYGROUND_CLIENT_IP_HEADER, e.g. X-Forwarded-For
    client_running: int = 1  # PLAYGROUND_CLIENT_RUNNING, jobs at once
    client_queued: int = 2  # PLAYGROUND_CLIENT_QUEUED, jobs waiting
    client_seconds_per_minute: float = 40.0  # PLAYGROUND_CLIENT_SECONDS_PER_MINUTE
    fair_slots: int = 0  # PLAYGROUND_FAIR_SLOTS, 0: the pool size
    editor: str = "auto"  # PLAYGROUND_EDITOR: auto (code editor) | plain
    # The front door: per-client limits on everything before a Run (playground/front_door/)
    sessions_per_client: int = 8  # PLAYGROUND_SESSIONS_PER_CLIENT, tabs open at once
    messages_per_second: float = 2.0  # PLAYGROUND_MESSAGES_PER_SECOND, websocket, refill
    message_burst: int = 4  # PLAYGROUND_MESSAGE_BURST, the bucket's size
    # (small: page runs started at once hold Streamlit's event loop for about their sum; 8 at once
    # kept /_stcore/health waiting 1.5 s here, 4 at once 0.7 s)
    max_message_bytes: int = 256 * 1024  # PLAYGROUND_MAX_MESSAGE_BYTES, one browser message
    requests_per_second: float = 5.0  # PLAYGROUND_REQUESTS_PER_SECOND, HTTP, refill
    request_burst: int = 60  # PLAYGROUND_REQUEST_BURST, the bucket's size
    allowed_origins: str = ""  # PLAYGROUND_ALLOWED_ORIGINS, https://a.org,https://b.org
    # The HTTP API (playground/api/, docs/api.md)
    api_tokens: str = ""  # PLAYGROUND_API_TOKENS, ci=SECRET,bot=SECRET2: each its own client
    # The operator's view (docs/hosting.md)
    metrics_allow: str = "127.0.0.1/32,::1/128"  # PLAYGROUND_METRICS_ALLOW, who may GET /metrics
    maintenance_file: str = ""  # PLAYGROUND_MAINTENANCE_FILE: while it exists, no new Runs
    drain_s: float = 8.0  # PLAYGROUND_DRAIN_S: on SIGTERM, Runs in flight finish for this long

    @property
    def background_slots(self) -> int:
        """Workers beyond pool_size for jobs demoted to nice 19: while one runs, a short job gets
        its slot (fairness.py). 0 when jobs are never demoted."""
        return max(0, self.background_workers) if self.demote_after_s > 0 else 0

    @classmethod
    def from_env(cls) -> Settings:
        # Each value has its default's type (_env parses by it), which mypy cannot see.
        values: dict[str, Any] = {
            f.name: _env(f"PLAYGROUND_{f.name.upper()}", f.default) for f in fields(cls)
        }
        return cls(**values)


def settings() -> Settings:
    return Settings.from_env()
