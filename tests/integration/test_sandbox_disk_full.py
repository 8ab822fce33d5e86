"""A full TMPDIR on the server (issue 55): every Run failed with "the job ended its worker
before it reported", blaming the visitor's code. Now a Run is refused before it queues, with
the reason, counted for /metrics; once there is room again the next Run runs.

The server's TMPDIR is a small tmpfs of the test's own (mount needs root, as the sandbox's
uid drop does); a pool in a fresh process, since the jobs' folder is chosen once per process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest
import repo_paths

SERVER = r"""
import json, os, sys
sys.path.insert(0, "tests/support")
from sandbox_support import SETTINGS, script
from playground.contract.errors import DiskFull
from playground.sandbox import WorkerPool, layout

def run(pool):
    try:
        report = pool.submit(script("print('ran')\n"))
        return {"status": report.status, "stdout": report.stdout.strip(), "message": report.message}
    except DiskFull as refusal:
        return {"refused": str(refusal), "retry_after_s": refusal.retry_after_s}

with WorkerPool(SETTINGS) as pool:
    assert pool.wait_ready(), "the sandbox pool did not warm up"
    answers = {"before": run(pool)}
    filler = os.path.join(os.environ["TMPDIR"], "filler")
    with open(filler, "wb") as handle:  # until the disk is full
        try:
            while True:
                handle.write(b"\0" * (1 << 20))
                handle.flush()
        except OSError:
            pass
    answers["full"] = run(pool)
    answers["stats"] = pool.stats()[0]
    os.remove(filler)
    answers["after"] = run(pool)
print(json.dumps(answers))
"""


@pytest.fixture
def small_tmpdir():
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    path = tempfile.mkdtemp(prefix="playground-full-")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", path], capture_output=True)
    if done.returncode != 0:
        os.rmdir(path)
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", path], check=False)
        os.rmdir(path)


def test_a_full_tmpdir_is_a_clear_refusal_not_a_job_failure(small_tmpdir) -> None:
    env = dict(os.environ, TMPDIR=small_tmpdir, PYTHONPATH=str(repo_paths.ROOT))
    done = subprocess.run(
        [sys.executable, "-c", SERVER],
        cwd=repo_paths.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answers = json.loads(done.stdout.splitlines()[-1])
    assert answers["before"] == {"status": "ok", "stdout": "ran", "message": answers["before"]["message"]}
    refusal = answers["full"].get("refused", "")
    assert refusal.startswith("The server's temporary disk is full"), answers["full"]
    assert "not the cause" in refusal and answers["full"]["retry_after_s"] > 0
    assert answers["stats"]["disk_full_refusals"] == 1
    assert answers["after"]["status"] == "ok" and answers["after"]["stdout"] == "ran", answers["after"]
    assert "jobs' disk is full" in done.stderr  # the operator's line in the server's log
