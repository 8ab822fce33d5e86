"""A foreign Origin is refused at once where DNS never answers, and the server stays responsive.

Each case runs tests/support/no_dns_probe.py in its own network and mount namespace (`unshare`, as root):
only loopback, and a resolver that takes queries and answers none, as in a container without
Internet. The control, a bare Streamlit page without the front door, shows that the namespace
reproduces the stall (Streamlit's own check looks the server's external address up); the app
must not stall."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import repo_paths
from browser_support import ROOT


def probe(*args: str) -> dict:
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        why = "needs root, unshare (util-linux) and ip (iproute2)"
        if os.environ.get("CI"):
            pytest.fail(f"the no-DNS origin test must run in CI: {why}")
        pytest.skip(why)
    done = subprocess.run(
        [
            "unshare",
            "--net",
            "--mount",
            "--fork",
            sys.executable,
            str(repo_paths.SUPPORT / "no_dns_probe.py"),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_without_the_door_a_foreign_origin_stalls_the_whole_server():
    result = probe("--script", "bench/floor_app.py", "--upgrades", "1")
    assert result["lookup_hangs"]
    assert result["refusal_s"][0] > 2.0 and result["health_max_s"] > 2.0


def test_the_app_refuses_a_foreign_origin_within_100_ms_and_health_never_waits():
    result = probe("--upgrades", "5")
    assert result["lookup_hangs"]
    assert result["statuses"] == ["HTTP/1.1 403 Forbidden"]
    assert max(result["refusal_s"]) < 0.1, result
    assert result["health_max_s"] < 1.0, result
