"""A real `streamlit run app.py` with real sandboxed jobs, and its two ways of losing a client:
one that leaves mid-stream brings the open-streams gauge back and stops its job (billed, counted
as cancelled); a SIGTERM drains (new Runs refused with a sentence, a Run in flight finished, one
past PLAYGROUND_DRAIN_S told that the server restarted) and leaves nothing of the sandbox's: no
folder in its TMPDIR, no process, no job cgroup. The server has a TMPDIR of its own. The SIGTERM
test ends the module's server, so it comes last."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from browser_support import streamlit_server

DRAIN_S = 6.0
ENV = {
    "PLAYGROUND_POOL_SIZE": "2",
    "PLAYGROUND_CLIENT_RUNNING": "2",
    "PLAYGROUND_DRAIN_S": str(DRAIN_S),
    "PLAYGROUND_TIMEOUT_S": "60",
}
SLEEPS = "import time\nprint('started', flush=True)\ntime.sleep({s})\nprint('done')\n"


@pytest.fixture(scope="module")
def server():
    # Its own TMPDIR, which the sandbox's uids may traverse (pytest's tmp_path is 0700).
    tmpdir = Path(tempfile.mkdtemp(prefix="playground-drain-"))
    tmpdir.chmod(0o711)
    env = {**ENV, "TMPDIR": str(tmpdir)}
    try:
        with streamlit_server(executor="ui_support:real_or_subprocess", env=env) as (url, process):
            warm = post(url, {"source": "x = 1\n"})
            assert warm[0] == 200, warm
            yield url, process, tmpdir
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def post(url: str, body: dict, timeout: float = 120) -> tuple[int, Any]:
    request = urllib.request.Request(
        url + "/api/v1/analyze",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def scrape(url: str) -> dict[str, float]:
    text = urllib.request.urlopen(url + "/metrics", timeout=10).read().decode()
    found = {}
    for line in text.splitlines():
        match = re.match(r"^(playground_[a-z_]+(?:\{[^}]*\})?) (\S+)$", line)
        if match:
            found[match.group(1)] = float(match.group(2))
    return found


def until(check, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def test_a_client_that_leaves_mid_stream_brings_the_gauge_back_and_stops_its_job(server):
    url, _process, _tmp = server
    cancelled = 'playground_refusals_total{reason="cancelled"}'
    before = scrape(url).get(cancelled, 0.0)
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    body = json.dumps({"source": SLEEPS.format(s=40)})
    connection.request(
        "POST",
        "/api/v1/analyze",
        body=body,
        headers={"Content-Type": "application/json", "Accept": "application/x-ndjson"},
    )
    answer = connection.getresponse()
    assert answer.status == 200
    while json.loads(answer.readline())["event"] != "started":
        pass
    assert until(lambda: scrape(url)["playground_api_streams"] == 1, 5)
    connection.sock.close()  # the client leaves mid-stream, its job still running
    connection.close()
    assert until(lambda: scrape(url)["playground_api_streams"] == 0, 5), scrape(url)
    # Its job is stopped, not left running for nobody, and counted as a cancelled Run.
    assert until(lambda: scrape(url)["playground_running"] == 0, 5), scrape(url)
    assert scrape(url).get(cancelled, 0.0) == before + 1


def descendants(pid: int) -> set[tuple[int, str]]:
    """Every process under pid, as (pid, start time): a pid reused later is not the same."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add((child, start_time(child)))
            todo.append(child)
    return found


def start_time(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except OSError:
        return ""


def describe(pid: int) -> str:
    """A process's state, uid and command line, for a failure's message."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        uid = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("Uid:"))
        return f"{state} {uid.split()[1]} {Path(f'/proc/{pid}/cmdline').read_bytes()[:80]!r}"
    except OSError:
        return "gone"


def job_cgroups(pid: int) -> list[Path]:
    """The job cgroups the server made (job-<its pid>-<n>), in every hierarchy of its own."""
    found = []
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _id, controllers, path = line.split(":", 2)
        roots = [Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup")] if not controllers else []
        roots += [Path("/sys/fs/cgroup") / c for c in controllers.split(",") if c]
        for root in roots:
            found += (root / path.lstrip("/") / "playground-jobs").glob(f"job-{pid}-*")
    return found


def test_sigterm_finishes_or_tells_the_runs_in_flight_and_leaves_nothing(server):
    url, process, tmpdir = server
    answers: dict[str, tuple[int, Any]] = {}
    runs = {"short": SLEEPS.format(s=2), "long": SLEEPS.format(s=40)}
    threads = [
        threading.Thread(target=lambda n=n, s=s: answers.__setitem__(n, post(url, {"source": s})))
        for n, s in runs.items()
    ]
    for thread in threads:
        thread.start()
    assert until(lambda: scrape(url)["playground_running"] == 2, 30), scrape(url)
    sandbox = descendants(process.pid)
    groups = job_cgroups(process.pid)
    assert list(tmpdir.glob("playground-sandbox-*")), "the server's sandbox folder is in its TMPDIR"

    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    refused = post(url, {"source": "x = 1\n"}, timeout=10)  # meanwhile: refused, and told why
    assert refused[0] == 503, refused
    assert "restarting" in refused[1]["error"]["message"], refused

    for thread in threads:
        thread.join(DRAIN_S + 20)
    process.wait(timeout=DRAIN_S + 20)
    took = time.monotonic() - signalled
    print(f"SIGTERM to exit: {took:.1f} s (bound {DRAIN_S:g} s); exit status {process.returncode}")
    assert took < DRAIN_S + 5, took

    assert answers["short"][0] == 200 and answers["short"][1]["status"] == "ok", answers["short"]
    assert answers["long"][0] == 503, answers["long"]
    assert "restarted before your Run finished" in answers["long"][1]["error"]["message"], answers["long"]

    assert not list(tmpdir.glob("playground-sandbox-*")), list(tmpdir.iterdir())
    # Alive: a zombie holds nothing but its pid, and init reaps it once the server has gone.
    left = {
        (pid, start): describe(pid)
        for pid, start in sandbox
        if start and start_time(pid) == start and not describe(pid).startswith("Z ")
    }
    assert not left, left
    assert not [group for group in groups if group.exists()], groups
    print(f"before the SIGTERM: {len(sandbox)} processes under the server, {len(groups)} job cgroups")
