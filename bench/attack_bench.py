"""Attack bench (issue 38): hostile jobs and clients, class by class, and what the server paid.

Each class runs once against a real server while a second visitor (another client address)
runs the `retracing` example through the API and a prober times `/_stcore/health`. Per class
it prints the server's resident-memory growth and CPU seconds (its own process, not the
sandbox's), the attack's outcome, the other visitor's worst latency and the health's worst
answer, beside the issue's targets:

  forged report   a 30 MB report of ten million `{}` (RSS growth < 50 MB; a clear error)
  deadline        a 5 s job writing newlines through a 1 MiB pipe (ends within 5.5 s)
  billing         a report claiming 0.01 s after 1.5 s (billed the supervisor's figure)
  host events     a job writing demoted/queued/started lines (none reach the client)
  stream          800,000 events to an NDJSON client that never reads (< 16 MiB held,
                  let go when the client leaves)
  api             malformed bodies, CSRF, Transfer-Encoding with Content-Length (no 5xx)

    python bench/attack_bench.py                                  # starts its own server
    python bench/attack_bench.py --url http://127.0.0.1:8501 --pid 1234

Loopback only: an attack generator, never to be pointed at someone else's host. Exits 1 if a
target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import pathlib
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT), str(ROOT / "bench")]

from hostile_jobs import EVENT_FLOOD, FORGED_30MB, FORGED_DURATION, NEWLINE_FLOOD, SAY  # noqa: E402
from load_test import CLIENT_HEADER, own_server, process_cpu_s  # noqa: E402

ATTACKER, VISITOR = "203.0.113.66", "203.0.113.100"
MB = 2**20


@dataclass
class Row:
    attack: str
    figure: str
    target: str
    measured: str
    ok: bool | None


class Server:
    """The server's own process: resident memory and CPU seconds, read from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def rss_mb(self) -> float:
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def cpu_s(self) -> float:
        seconds = process_cpu_s(self.pid)
        if seconds is None:
            raise ProcessLookupError(f"the server (pid {self.pid}) is gone")
        return seconds


class Watch:
    """While an attack runs: the server's peak RSS (every 20 ms), health's worst answer (every
    0.2 s), and a visitor's `retracing` runs through the API, back to back."""

    def __init__(self, url: str, server: Server) -> None:
        self.url, self.server = url, server
        self.stop = threading.Event()
        self.base_rss = self.peak_rss = server.rss_mb()
        self.base_cpu = server.cpu_s()
        self.health_worst = 0.0
        self.visitor: list[float] = []
        self.visitor_errors = 0
        self.threads = [
            threading.Thread(target=t, daemon=True) for t in (self._memory, self._health, self._visit)
        ]

    def __enter__(self) -> Watch:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)
        self.cpu = self.server.cpu_s() - self.base_cpu

    def _memory(self) -> None:
        while not self.stop.wait(0.02):
            self.peak_rss = max(self.peak_rss, self.server.rss_mb())

    def _health(self) -> None:
        while not self.stop.wait(0.2):
            started = time.monotonic()
            try:
                request("GET", self.url + "/_stcore/health", timeout=10)
            except OSError:
                pass
            self.health_worst = max(self.health_worst, time.monotonic() - started)

    def _visit(self) -> None:
        example = json.loads(request("GET", self.url + "/api/v1/examples/retracing")[1])
        while not self.stop.is_set():
            started = time.monotonic()
            status, _ = request(
                "POST", self.url + "/api/v1/analyze", example["request"], client=VISITOR, timeout=120
            )
            if status == 200:
                self.visitor.append(time.monotonic() - started)
            else:
                self.visitor_errors += 1
                self.stop.wait(1.0)

    def rows(self, attack: str) -> list[Row]:
        worst = max(self.visitor, default=0.0)
        return [
            Row(attack, "server RSS growth", "", f"{self.peak_rss - self.base_rss:.0f} MB", None),
            Row(attack, "server CPU (the attack's and the visitor's)", "", f"{self.cpu:.2f} s", None),
            Row(attack, "health, worst", "< 1 s", f"{self.health_worst:.2f} s", self.health_worst < 1.0),
            Row(
                attack,
                "other visitor: runs, worst, refused",
                "",
                f"{len(self.visitor)}, {worst:.2f} s, {self.visitor_errors}",
                None,
            ),
        ]


def request(
    method: str,
    url: str,
    body: Any = None,
    client: str = ATTACKER,
    timeout: float = 60,
    headers: dict | None = None,
) -> tuple[int, bytes]:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    sent = {
        CLIENT_HEADER: client,
        **({"Content-Type": "application/json"} if data else {}),
        **(headers or {}),
    }
    try:
        connection.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), data, sent)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def analyze(url: str, source: str, timeout_s: float = 20) -> tuple[float, dict]:
    started = time.monotonic()
    status, body = request(
        "POST", url + "/api/v1/analyze", {"source": source, "timeout_s": timeout_s}, timeout=120
    )
    answer = json.loads(body)
    return time.monotonic() - started, answer if status == 200 else {"refused": answer}


def forged_report(url: str) -> list[Row]:
    wall, report = analyze(url, FORGED_30MB)
    late = wall - report.get("duration_s", wall)
    return [
        Row(
            "forged report",
            "outcome",
            "a clear error",
            f"{report.get('status')}: {str(report.get('message'))[:70]}",
            report.get("status") == "killed",
        ),
        Row("forged report", "answer after the job ended", "< 1 s", f"{late:.2f} s", late < 1.0),
    ]


def deadline(url: str) -> list[Row]:
    wall, report = analyze(url, NEWLINE_FLOOD, timeout_s=5)
    duration = report.get("duration_s", wall)
    return [
        Row("deadline", "job's run (supervisor's clock)", "<= 5.5 s", f"{duration:.2f} s", duration <= 5.5),
        Row("deadline", "request to answer", "", f"{wall:.2f} s", None),
    ]


def billing(url: str) -> list[Row]:
    _, report = analyze(url, FORGED_DURATION)
    billed = report.get("duration_s", 0.0)
    return [
        Row(
            "billing",
            "duration billed (job claimed 0.01 s, slept 1.5 s)",
            ">= 1.5 s",
            f"{billed:.2f} s",
            billed >= 1.5,
        )
    ]


def host_events(url: str) -> list[Row]:
    source = SAY + (
        'for kind in ("demoted", "queued", "started", "accepted", "retry"):\n'
        '    say(json.dumps({"event": kind, "after_s": 0}).encode() + b"\\n")\n'
    )
    lines = list(stream(url, source))
    forged = [e for e in lines[1:] if e.get("event") in ("demoted", "queued", "accepted")]
    starts = sum(1 for e in lines if e.get("event") == "started")
    return [
        Row(
            "host events",
            "forged host events reaching the client",
            "0",
            f"{len(forged)} (started x{starts})",
            not forged and starts == 1,
        )
    ]


def stream(url: str, source: str) -> Iterator[dict]:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    connection.request(
        "POST",
        "/api/v1/analyze",
        json.dumps({"source": source}).encode(),
        {CLIENT_HEADER: ATTACKER, "Content-Type": "application/json", "Accept": "application/x-ndjson"},
    )
    with contextlib.closing(connection):
        for line in connection.getresponse():
            if line.strip():
                yield json.loads(line)


def stalled_stream(url: str, server: Server) -> list[Row]:
    """An NDJSON client that sends its request and never reads, then leaves."""
    parts = urllib.parse.urlsplit(url)
    body = json.dumps({"source": EVENT_FLOOD}).encode()
    sock = socket.create_connection((parts.hostname, parts.port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    base = server.rss_mb()
    sock.sendall(
        b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Accept: application/x-ndjson\r\n"
        + f"{CLIENT_HEADER}: {ATTACKER}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    peak, deadline_ = base, time.monotonic() + 25
    while time.monotonic() < deadline_:
        peak = max(peak, server.rss_mb())
        time.sleep(0.05)
    sock.close()
    time.sleep(3)
    after = server.rss_mb()
    return [
        Row(
            "stream",
            "held for a client that never reads",
            "< 16 MB",
            f"{peak - base:.0f} MB",
            peak - base < 16,
        ),
        Row("stream", "held after it left", "", f"{after - base:.0f} MB", None),
    ]


MALFORMED = [
    b"{" * 100_000 + b"}" * 100_000,
    b'{"source": "x", "calls": ["float32[' + b"9" * 5000 + b']"]}',
    '{"source": "x", "calls": ["float32[²]"]}'.encode(),
    '{"source": "x", "signature": "float32[³]"}'.encode(),
    b'{"source": 5}',
    b"[]",
    b'"x"',
    b"\xff\xfe",
    b'{"source": "x", "calls": "float32[2]"}',
    b'{"source": "x", "timeout_s": "soon"}',
    b'{"source": "x", "timeout_s": 1e999}',
]


def api(url: str, server: Server) -> list[Row]:
    statuses = [request("POST", url + "/api/v1/analyze", body)[0] for body in MALFORMED]
    csrf = request(
        "POST",
        url + "/api/v1/analyze",
        b'{"source": "print(1)"}',
        headers={"Content-Type": "text/plain", "Origin": "https://evil.example"},
    )[0]
    base = server.rss_mb()
    smuggled = smuggle(url)
    return [
        Row(
            "api",
            "malformed bodies answered 5xx",
            "0",
            f"{sum(s >= 500 for s in statuses)} of {len(statuses)} ({sorted(set(statuses))})",
            all(400 <= s < 500 for s in statuses),
        ),
        Row("api", "foreign simple POST (CSRF)", "refused, 4xx", str(csrf), 400 <= csrf < 500),
        Row(
            "api",
            "Content-Length with chunked",
            "400, RSS < +10 MB",
            f"{smuggled}, +{server.rss_mb() - base:.0f} MB",
            smuggled == 400,
        ),
    ]


def smuggle(url: str) -> int:
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    with contextlib.closing(sock):
        sock.sendall(
            b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
            b"\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        try:
            chunk = b"x" * MB
            for _ in range(40):
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        except OSError:
            pass
        try:
            head = sock.recv(64)
            return int(head.split()[1])
        except (OSError, IndexError, ValueError):
            return 0


ATTACKS: dict[str, Callable[..., list[Row]]] = {
    "forged report": forged_report,
    "deadline": deadline,
    "billing": billing,
    "host events": host_events,
    "stream": stalled_stream,
    "api": api,
}


def run(url: str, pid: int) -> list[Row]:
    server = Server(pid)
    rows: list[Row] = []
    analyze(url, "print('warm')")  # the pool warms on the first run: not an attack's cost
    for name, attack in ATTACKS.items():
        with Watch(url, server) as watch:
            takes_server = attack.__code__.co_argcount == 2
            rows += attack(url, server) if takes_server else attack(url)
        rows += watch.rows(name)
        print(f"... {name} done", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running app (default: start one)")
    parser.add_argument("--pid", type=int, help="the running app's process id")
    args = parser.parse_args(argv)
    if args.url:
        rows = run(args.url.rstrip("/"), args.pid)
    else:
        # Generous per-client limits: the bench measures what attacks cost, not the rate limit.
        os.environ.setdefault("PLAYGROUND_RUNS_PER_MINUTE", "1000")
        os.environ.setdefault("PLAYGROUND_CLIENT_SECONDS_PER_MINUTE", "1000")
        with own_server() as (url, pid):
            rows = run(url, pid)
    print(f"\n{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores")
    print(f"{'attack':<14} {'figure':<52} {'target':<18} measured")
    for row in rows:
        verdict = "" if row.ok is None else ("  ok" if row.ok else "  MISSED")
        print(f"{row.attack:<14} {row.figure:<52} {row.target:<18} {row.measured}{verdict}")
    return 0 if all(row.ok is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
