"""Decides which Ray cluster this process uses: the one RAY_ADDRESS (or the caller) names, or a
private local instance of its own, never whatever cluster happens to be on the machine.

A plain `ray.init(num_cpus=...)` reads /tmp/ray/ray_current_cluster, which a crashed or killed
`ray start` leaves behind, and then tries to join that (dead) cluster: "When connecting to an
existing cluster, num_cpus and num_gpus must not be provided". `address="local"` never reads it.
"""

from __future__ import annotations

import logging
import os

import ray

from ...contract.errors import SandboxError
from .node_pool import SLOT

LOOPBACK = "127.0.0.2"  # Ray rewrites 127.0.0.1 to the machine's address; this stays loopback
LOCAL_STARTS = 2


def connect(address: str | None = None, num_cpus: int = 1) -> bool:
    """Connects this process to Ray. Returns True when it started a local instance (the caller
    shuts it down), with `num_cpus` CPUs and as many job slots; False when it joined a named
    cluster (whose nodes offer their own slots) or one was already connected."""
    if ray.is_initialized():
        return False
    address = address if address is not None else os.environ.get("RAY_ADDRESS", "")
    try:
        if address:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
            return False
        for attempt in range(1, LOCAL_STARTS + 1):
            try:
                ray.init(
                    address="local",
                    num_cpus=max(1, num_cpus),
                    resources={SLOT: max(1, num_cpus)},
                    include_dashboard=False,
                    _node_ip_address=LOOPBACK,
                    logging_level=logging.WARNING,
                    log_to_driver=False,
                )
                return True
            except Exception as e:
                # Ray gives its raylet a fixed 30 s to register; a loaded machine can miss it.
                if attempt == LOCAL_STARTS or "timed out during startup" not in str(e):
                    raise
                ray.shutdown()
        return True
    except Exception as e:  # a bad address or a dead head node is the operator's to fix
        raise SandboxError(f"cannot connect to Ray at {address or 'a local instance'}: {e}") from e
