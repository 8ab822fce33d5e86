"""A Docker engine for the container tests: the one that already answers, or a dockerd started
here and stopped again afterwards."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

import host_network
import processes

START_TIMEOUT_S = 60


class NoEngine(RuntimeError):
    """No Docker engine answers here, and none can be started; the message says why."""


def answers() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def _tail(path: str, lines: int = 15) -> str:
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


@contextlib.contextmanager
def engine() -> Iterator[str]:
    """Yields a line saying which engine; stops dockerd only if it started it."""
    if answers():
        yield "the Docker engine already running"
        return
    dockerd = shutil.which("dockerd")
    if not dockerd or not shutil.which("docker"):
        raise NoEngine(
            "no Docker engine answers and dockerd is not installed "
            "(scripts/install.sh --test installs Debian's docker.io)"
        )
    if os.geteuid() != 0:
        raise NoEngine("no Docker engine answers, and starting dockerd needs root")
    log = tempfile.NamedTemporaryFile(prefix="playground-dockerd-", suffix=".log", delete=False)
    # A default dockerd sets the host's FORWARD policy to DROP and turns IP forwarding on, and
    # neither is undone when it stops. Without them published ports still work (docker-proxy
    # carries them) and builds use the host's network (build-image.sh --network host).
    # Its own session: a Ctrl-C of the tests must not stop it before the containers are removed.
    process: subprocess.Popen | None = None
    try:
        with host_network.changing():  # dockerd makes its bridge, docker0, as it starts
            process = subprocess.Popen(
                [dockerd, "--iptables=false", "--ip-forward=false"],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = time.monotonic() + START_TIMEOUT_S
            while not answers():
                if process.poll() is not None:
                    raise NoEngine(f"dockerd exited with {process.returncode}:\n{_tail(log.name)}")
                if time.monotonic() > deadline:
                    raise NoEngine(f"dockerd did not answer within {START_TIMEOUT_S} s:\n{_tail(log.name)}")
                time.sleep(0.5)
        yield "dockerd started for these tests"
    finally:
        if process is not None:
            with host_network.changing():
                processes.stop(process, 60)
        log.close()
    os.unlink(log.name)  # kept only when dockerd failed to start: that error quotes it
