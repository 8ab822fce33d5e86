"""Ending a server the tests started: ask it to stop, then kill it if it does not in time."""

from __future__ import annotations

import subprocess


def stop(process: subprocess.Popen, grace_s: float) -> None:
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
