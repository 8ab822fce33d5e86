"""Starts `streamlit run app.py` on a free port and opens Debian's Chromium on it (tests, bench)."""
from __future__ import annotations

import contextlib
import os
import pathlib
import socket
import subprocess
import sys
import urllib.request
from typing import Iterator

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(executor: str = "") -> Iterator[tuple[str, subprocess.Popen]]:
    # PLAYGROUND_UI_BROWSER_EXECUTOR=ui_support:subprocess_engine bypasses the pool while it is down.
    executor = executor or os.environ.get("PLAYGROUND_UI_BROWSER_EXECUTOR", "ui_support:real_or_subprocess")
    port = free_port()
    env = dict(os.environ, PLAYGROUND_UI_EXECUTOR=executor,
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        # Streamlit prints its URL once the server listens; then the health check answers.
        for line in process.stdout:  # type: ignore[union-attr]
            if "URL" in line:
                break
        else:
            raise RuntimeError("streamlit exited before it started")
        urllib.request.urlopen(f"{url}/_stcore/health", timeout=30).read()
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=20)


def launch(playwright):  # type: ignore[no-untyped-def]
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
