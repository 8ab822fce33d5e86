"""One lock between the tests that change this host's network interfaces and the tests that
drive Chromium.

Chromium aborts every request it has in flight when the host's interfaces or addresses change
(net::ERR_NETWORK_CHANGED), so a page loading at that moment loses some of its scripts and shows
"Failed to fetch dynamically imported module". The container tests make such changes: dockerd's
bridge, a network's bridge, each container's veth pair, and the IPv6 link-local addresses the
kernel gives them a second or two later. Under `pytest -n 2` a browser test in the other worker
was loading meanwhile (caught by recording the page's failed requests: every one
net::ERR_NETWORK_CHANGED, while a container started). So a browser test holds the lock shared
(the `browser` marker, tests/conftest.py) and a change holds it alone until the network is still.
"""

from __future__ import annotations

import contextlib
import fcntl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

LOCK = Path(tempfile.gettempdir()) / "tf-playground-host-network.lock"
# Taken before LOCK by both sides, and kept by a change until it is done: a change that waits
# for the browsers goes before any browser test that comes later (flock alone would let shared
# holders overlap one another and starve it).
TURNSTILE = LOCK.with_suffix(".turnstile")
QUIET_S = 1.0  # how long the interfaces must stay as they are to count as settled


@contextlib.contextmanager
def _held(path: Path, kind: int) -> Iterator[None]:
    with open(path, "a") as lock:
        fcntl.flock(lock, kind)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@contextlib.contextmanager
def browsing() -> Iterator[None]:
    """Held by a test while its browser loads pages: no interface changes meanwhile."""
    with open(LOCK, "a") as lock:
        with _held(TURNSTILE, fcntl.LOCK_EX):
            fcntl.flock(lock, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@contextlib.contextmanager
def changing() -> Iterator[None]:
    """Held around a step that adds or removes interfaces, and until they have settled."""
    with _held(TURNSTILE, fcntl.LOCK_EX), _held(LOCK, fcntl.LOCK_EX):
        try:
            yield
        finally:
            settle()


def _interfaces() -> str | None:
    """The host's links and addresses, as `ip` lists them."""
    try:
        return "".join(
            subprocess.run(["ip", "-o", what], capture_output=True, text=True, timeout=10).stdout
            for what in ("link", "addr")
        )
    except (OSError, subprocess.TimeoutExpired):
        return None  # no `ip`: nothing to watch


def settle(timeout_s: float = 30.0) -> None:
    """Waits until no address is tentative (duplicate address detection still running) and the
    interfaces have stayed the same for QUIET_S."""
    deadline = time.monotonic() + timeout_s
    last, since = _interfaces(), time.monotonic()
    while last is not None and time.monotonic() < deadline:
        time.sleep(0.2)
        now = _interfaces()
        if now != last or "tentative" in (now or ""):
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= QUIET_S:
            return
