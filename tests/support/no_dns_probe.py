"""Run inside a fresh network and mount namespace (tests/integration/test_front_door_origin.py starts it with
`unshare --net --mount`): a DNS server that never answers, the app on loopback, and WebSocket
upgrades with a foreign Origin, timed while /_stcore/health is polled. Prints one JSON object.

    unshare --net --mount --fork python tests/support/no_dns_probe.py [--script app.py] [--upgrades 5]

Where no DNS answers, a name lookup waits for the resolver's timeouts: that is what froze
Streamlit's event loop for ~20 s per foreign Origin before the front door (docs/hosting.md).
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import repo_paths

ROOT = repo_paths.ROOT
RESOLVER = "127.0.0.53"  # a loopback address no real resolver uses here


def blackhole_dns() -> socket.socket:
    """resolv.conf names a server on loopback that takes every query and answers none."""
    conf = tempfile.NamedTemporaryFile("w", suffix=".resolv.conf", delete=False)
    conf.write(f"nameserver {RESOLVER}\noptions timeout:2 attempts:2\n")
    conf.close()
    subprocess.run(["mount", "--bind", conf.name, "/etc/resolv.conf"], check=True)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind((RESOLVER, 53))
    return sink


def lookup_hangs(name: str = "checkip.amazonaws.com", wait_s: float = 1.5) -> bool:
    """The control: a lookup in this namespace does not return within wait_s."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    future = pool.submit(socket.getaddrinfo, name, 80)
    try:
        future.result(timeout=wait_s)
        return False
    except concurrent.futures.TimeoutError:
        return True
    except OSError:
        return False
    finally:
        pool.shutdown(wait=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def upgrade(port: int, origin: str) -> tuple[float, str]:
    """One WebSocket handshake on /_stcore/stream: seconds until the server answered, and its
    status line."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\n\r\n"
    )
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(request.encode())
        status = s.recv(4096).split(b"\r\n", 1)[0].decode()
    return time.monotonic() - started, status


def settle(port: int, quiet_s: float = 0.05, in_a_row: int = 10, limit_s: float = 90.0) -> None:
    """Waits out the server's start-up warm-up (the pool's first use, pre-paid page-run costs in
    a thread that holds the GIL): until health answers within quiet_s, in_a_row times running."""
    deadline, streak = time.monotonic() + limit_s, 0
    while streak < in_a_row and time.monotonic() < deadline:
        started = time.monotonic()
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=30).read()
        streak = streak + 1 if time.monotonic() - started < quiet_s else 0
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", default="app.py")
    parser.add_argument("--upgrades", type=int, default=5)
    args = parser.parse_args()
    sink = blackhole_dns()
    result: dict = {"lookup_hangs": lookup_hangs()}
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), PLAYGROUND_POOL_SIZE="1")
    # The server's address is set, so start-up prints it instead of asking the Internet for it.
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            args.script,
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.serverAddress",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the app did not start") from None
                time.sleep(0.3)
        settle(port)
        health: list[float] = []
        done = threading.Event()

        def poll() -> None:
            while not done.is_set():
                started = time.monotonic()
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=60).read()
                health.append(time.monotonic() - started)
                time.sleep(0.05)

        upgrade(port, f"http://127.0.0.1:{port}")  # the server's first handshake, untimed
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        answers = [upgrade(port, "https://evil.example") for _ in range(args.upgrades)]
        time.sleep(0.3)
        done.set()
        poller.join(timeout=60)
        result.update(
            refusal_s=[round(t, 4) for t, _ in answers],
            statuses=sorted({s for _, s in answers}),
            health_max_s=round(max(health), 4),
            health_polls=len(health),
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
        sink.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
