"""Capacity: how many visitors one machine serves (issue 43), with the CPU ceiling beside it.

Each visitor is its own client (its own X-Forwarded-For, which the server this script starts
trusts), holds one raw websocket session (tests/support/streamlit_wire.py, the messages Chromium
sends), opens the page on the `retracing` example, and presses Run after an exponential think
time (mean --think, 15 s), as a browser does: the press names Run's fragment, so only that
fragment reruns. A Run counts when its result caption ("Run N · TensorFlow") and its
trace count (2) come back; a press the server refuses counts as refused, with the words it said.
The visitors ramp up step by step (--steps). For each step, over its measured window:

- Runs/s, the p50 and p95 from the press to the page run's end, refusals and their p95 from
  the press to the refusal on the page (refused95);
- health: the slowest of one `/_stcore/health` a second;
- the server's RSS (the Streamlit process and its sandbox workers);
- CPU per Run: the machine's busy time (/proc/stat) less this script's own, per Run; and
  beside it the server's own (server_cgroup.py: the Streamlit process and everything it
  starts, the sandbox included), where this script may make a cgroup around the server it
  starts (as root): the target's measure, without the machine's other work; and of that,
  the page's: the Streamlit process's own threads;
- /metrics read before and after: its Runs and refusals beside this script's own counts (a
  Run near a window's edge can fall on either side; over the whole bench, read before the
  first visitor and after the last press has ended, the two must agree, and the bench says so).

The CPU ceiling is the machine's cores over the CPU per Run of the lightest step: the Runs/s
this stack does with every core busy on Runs. The last line is the capacity (the most visitors
at p95 <= --p95 with at most 1% of presses refused) and its Runs/s as a fraction of that
ceiling.

    python bench/capacity.py --steps 20,40,80 --step-seconds 60
    python bench/capacity.py --url http://127.0.0.1:8501 --pid 1234    # an app already running
    python bench/capacity.py --api --steps 100,200 # API clients: POST /api/v1/analyze, same think time
Loopback addresses only: this is a load generator, never to be pointed at someone else's host.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from bench_sandbox import busy_cpu_s  # the machine's busy time, as the sandbox bench reads it
from load_test import CLIENT_HEADER, ROOT, descendants, healthy, own_server, process_cpu_s
from server_cgroup import ServerCgroup

sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT)]
from streamlit_wire import Session, SessionClosed, new_element, trigger  # noqa: E402

EXAMPLE = "example=retracing"
TRACES = "2"  # the retracing example's trace count
CAPTION = re.compile(r"^Run (\d+) · TensorFlow")
REFUSED_AT_MOST = 0.01  # of a step's presses, for the step to count toward capacity
HTTP_THREADS = ThreadPoolExecutor(512)  # API clients' requests, each blocking one thread
REFUSAL = re.compile(r"Busy|refused|try again|limit|warming|maintenance", re.IGNORECASE)


@dataclass
class Step:
    visitors: int
    runs: list[float] = field(default_factory=list)  # seconds, press to page run end, in window
    refused: list[str] = field(default_factory=list)
    refused_s: list[float] = field(default_factory=list)  # press to the refusal on the page
    failed: list[str] = field(default_factory=list)
    health_s: list[float] = field(default_factory=list)
    busy_cpu_s: float = 0.0
    own_cpu_s: float = 0.0
    server_cpu_s: float | None = None  # the server's cgroup, where there is one
    page_cpu_s: float | None = None  # the Streamlit process's own threads, its children not
    window_s: float = 0.0
    rss_mib: float = 0.0
    metrics_runs: float | None = None
    metrics_refusals: float | None = None
    counting: bool = False

    @property
    def runs_per_s(self) -> float:
        return len(self.runs) / self.window_s if self.window_s else 0.0

    def p(self, q: float, of: list[float] | None = None) -> float | None:
        values = self.runs if of is None else of
        if len(values) < 2:
            return values[0] if values else None
        return statistics.quantiles(values, n=100)[int(q) - 1]

    def per_run(self, seconds: float | None) -> float | None:
        return seconds / len(self.runs) if self.runs and seconds is not None else None

    @property
    def cpu_per_run(self) -> float | None:
        return self.per_run(self.busy_cpu_s - self.own_cpu_s)

    @property
    def server_cpu_per_run(self) -> float | None:
        return self.per_run(self.server_cpu_s)

    @property
    def page_cpu_per_run(self) -> float | None:
        return self.per_run(self.page_cpu_s)


@dataclass
class Totals:
    """Every Run and refusal of the whole bench, windows or not: beside /metrics' own counts,
    read before the first visitor and after the last press has ended, they must agree."""

    runs: int = 0
    refused: int = 0


def address_of(index: int) -> str:
    """Each visitor's or client's own address (sent as X-Forwarded-For): its own client."""
    return f"10.{index // 65536 % 256}.{index // 256 % 256}.{index % 256 or 1}"


async def thought(stop: asyncio.Event, think_s: float) -> bool:
    """Waits an exponential think time of mean think_s; False if the bench stopped meanwhile."""
    try:
        await asyncio.wait_for(stop.wait(), random.expovariate(1 / think_s))
        return False
    except asyncio.TimeoutError:
        return not stop.is_set()


class Visitor:
    """One browser tab's traffic: the page, then Run after each think time."""

    def __init__(self, index: int, url: str, think_s: float, timeout_s: float, totals: Totals) -> None:
        self.index, self.url, self.think_s, self.timeout_s = index, url, think_s, timeout_s
        self.totals = totals
        self.run_id = self.run_fragment = ""
        self.texts: list[tuple[str, str]] = []  # (kind, text) of the elements of the last run

    def watch(self, message) -> None:  # type: ignore[no-untyped-def]
        drawn = new_element(message)
        if drawn is None:
            return
        kind, body, fragment = drawn
        if kind == "button" and body.id.endswith("-run"):
            self.run_id, self.run_fragment = body.id, fragment  # a browser sends both
        elif kind in ("markdown", "alert", "metric", "exception"):
            label = getattr(body, "label", "")
            self.texts.append((kind, f"{label}={body.body}" if kind == "metric" else body.body))

    async def live(self, step: list[Step], stop: asyncio.Event) -> None:
        session = await Session.open(self.url, client_ip=address_of(self.index), timeout=60)
        session.watch = self.watch
        async with session:
            await session.rerun(EXAMPLE, timeout=self.timeout_s)
            shown = 0
            while await thought(stop, self.think_s):
                self.texts.clear()
                current = step[-1]
                started = time.monotonic()
                try:
                    await session.rerun(
                        widgets=[trigger(self.run_id)],
                        timeout=self.timeout_s,
                        fragment_id=self.run_fragment,
                        through_reruns=True,
                    )
                except (asyncio.TimeoutError, SessionClosed) as error:
                    current.failed.append(f"visitor {self.index}: {type(error).__name__}")
                    return
                seconds = time.monotonic() - started
                caption = [int(m[1]) for _k, t in self.texts if (m := CAPTION.match(t.replace("\\", "")))]
                traces = [t for k, t in self.texts if k == "metric" and t.startswith("Traces=")]
                if caption and caption[-1] > shown and traces == [f"Traces={TRACES}"]:
                    shown = caption[-1]
                    self.totals.runs += 1
                    if current.counting:
                        current.runs.append(seconds)
                    continue
                words = [t for k, t in self.texts if k in ("alert", "exception") and REFUSAL.search(t)]
                self.totals.refused += bool(words)
                if current.counting:
                    (current.refused if words else current.failed).append(
                        (words or [f"visitor {self.index}: no result ({len(self.texts)} elements)"])[0][:120]
                    )
                    if words:
                        current.refused_s.append(seconds)


class ApiClient:
    """One API client (--api): POST /api/v1/analyze with the same example after each think time,
    from its own address. A Run counts on a 200 whose report has the example's trace count; a
    429 or 503 is a refusal, with the error's words."""

    def __init__(self, index: int, url: str, think_s: float, timeout_s: float, totals: Totals) -> None:
        from playground.gallery import BY_SLUG

        example = BY_SLUG[EXAMPLE.split("=", 1)[1]]
        self.body = json.dumps(
            {"source": example.source, "function": example.function, "calls": list(example.calls)}
        )
        self.index, self.url, self.think_s, self.timeout_s = index, url, think_s, timeout_s
        self.totals = totals

    def post(self, address: str) -> tuple[int, dict]:
        request = urllib.request.Request(
            f"{self.url}/api/v1/analyze",
            data=self.body.encode(),
            method="POST",
            headers={"Content-Type": "application/json", CLIENT_HEADER: address},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    async def live(self, step: list[Step], stop: asyncio.Event) -> None:
        address, loop = address_of(self.index), asyncio.get_running_loop()
        while await thought(stop, self.think_s):
            current, started = step[-1], time.monotonic()
            try:
                status, body = await loop.run_in_executor(HTTP_THREADS, self.post, address)
            except OSError as error:
                if current.counting:
                    current.failed.append(f"client {self.index}: {type(error).__name__}")
                continue
            seconds = time.monotonic() - started
            if status == 200 and sum(f.get("tracing_count", 0) for f in body.get("functions", [])) == int(
                TRACES
            ):
                self.totals.runs += 1
                if current.counting:
                    current.runs.append(seconds)
            elif status in (429, 503):
                self.totals.refused += 1
                if current.counting:
                    current.refused.append(str(body.get("error", {}).get("message", status))[:120])
                    current.refused_s.append(seconds)
            elif current.counting:
                current.failed.append(f"client {self.index}: HTTP {status}")


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def scraped(url: str) -> tuple[float, float] | None:
    """(Runs that ended ok, refusals) from /metrics, or None where it is not allowed here."""
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=10) as answer:
            text = answer.read().decode()
    except OSError:
        return None
    runs = refused = 0.0
    for line in text.splitlines():
        if line.startswith('playground_runs_total{outcome="ok"}'):
            runs = float(line.split()[-1])
        elif line.startswith("playground_refusals_total{"):
            refused += float(line.split()[-1])
    return runs, refused


def rss_mib(pid: int | None) -> float:
    if pid is None:
        return 0.0
    total = 0
    for each in [pid, *descendants(pid)]:
        try:
            status = open(f"/proc/{each}/status").read()
        except OSError:
            continue
        found = re.search(r"VmRSS:\s+(\d+)", status)
        total += int(found.group(1)) if found else 0
    return total / 1024


def watch_health(url: str, step: list[Step], stop: threading.Event) -> None:
    while not stop.wait(1.0):
        started = time.monotonic()
        ok = healthy(url, 10.0)
        step[-1].health_s.append(time.monotonic() - started if ok else 10.0)


def until_ready(url: str, timeout_s: float = 240.0) -> None:
    """Until the server takes Runs (GET /api/v1/ready: 503 while its sandbox warms up)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            urllib.request.urlopen(url + "/api/v1/ready", timeout=10).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} was not ready within {timeout_s:g} s") from None
            time.sleep(0.5)


async def measure(
    url: str, pid: int | None, counts: list[int], args: argparse.Namespace, cgroup: ServerCgroup | None = None
) -> list[Step]:
    until_ready(url)
    totals, first = Totals(), scraped(url)
    steps: list[Step] = []
    stop, visitors = asyncio.Event(), []
    health_stop = threading.Event()
    threading.Thread(target=watch_health, args=(url, steps, health_stop), daemon=True).start()
    tasks: list[asyncio.Task] = []
    try:
        for count in counts:
            steps.append(Step(count))
            for index in range(len(visitors), count):  # the ramp: a new visitor each 50 ms
                kind = ApiClient if args.api else Visitor
                visitors.append(kind(index + 1, url, args.think, args.timeout, totals))
                tasks.append(asyncio.create_task(visitors[-1].live(steps, stop)))
                await asyncio.sleep(0.05)
            await asyncio.sleep(args.settle)  # the new visitors' page opens, the queue's new level
            step = steps[-1]
            step.health_s.clear()
            before = scraped(url)
            busy, own, started = busy_cpu_s(), own_cpu_s(), time.monotonic()
            server, page = cgroup.cpu_s() if cgroup else 0.0, process_cpu_s(pid)
            step.counting = True
            await asyncio.sleep(args.step_seconds)
            step.counting = False
            step.window_s = time.monotonic() - started
            step.busy_cpu_s, step.own_cpu_s = busy_cpu_s() - busy, own_cpu_s() - own
            step.server_cpu_s = cgroup.cpu_s() - server if cgroup else None
            page_now = process_cpu_s(pid)
            step.page_cpu_s = page_now - page if page is not None and page_now is not None else None
            after = scraped(url)
            if before and after:
                step.metrics_runs, step.metrics_refusals = after[0] - before[0], after[1] - before[1]
            step.rss_mib = rss_mib(pid)
            report(step)
    finally:
        stop.set()
        health_stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)  # every press in flight ends first
    last = scraped(url)
    if first and last:
        print(
            f"whole bench, bench / /metrics: Runs {totals.runs} / {last[0] - first[0]:.0f}, "
            f"refusals {totals.refused} / {last[1] - first[1]:.0f}"
        )
    return steps


def report(s: Step) -> None:
    p50, p95 = s.p(50), s.p(95)
    cpu = s.cpu_per_run
    print(
        f"{s.visitors:>8} {s.runs_per_s:>7.2f} {fmt(p50):>6} {fmt(p95):>6} {len(s.refused):>7}"
        f" {fmt(s.p(95, s.refused_s)):>9} {len(s.failed):>6}"
        f" {max(s.health_s, default=0):>8.2f} {s.rss_mib:>7.0f} {fmt(cpu, 3):>9} {fmt(s.server_cpu_per_run, 3):>8}"
        f" {fmt(s.page_cpu_per_run, 3):>6}"
        f" {len(s.runs):>5}/{fmt(s.metrics_runs, 0):>5} {len(s.refused):>5}/{fmt(s.metrics_refusals, 0):>5}",
        flush=True,
    )
    for words in sorted(set(s.refused + s.failed))[:3]:
        print(f"         e.g. {words}", flush=True)


def fmt(value: float | None, places: int = 2) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--url", help="an app already running (with PLAYGROUND_CLIENT_IP_HEADER=X-Forwarded-For)"
    )
    parser.add_argument("--pid", type=int, help="its Streamlit process, for RSS")
    parser.add_argument("--steps", default="10,20,40,80", help="visitors at each step (default 10,20,40,80)")
    parser.add_argument("--step-seconds", type=float, default=60.0, help="each step's measured window")
    parser.add_argument("--settle", type=float, default=15.0, help="seconds after a ramp before measuring")
    parser.add_argument("--think", type=float, default=15.0, help="mean think time between presses (s)")
    parser.add_argument("--timeout", type=float, default=120.0, help="a press's longest wait (s)")
    parser.add_argument(
        "--api", action="store_true", help="API clients (POST /api/v1/analyze), not page visitors"
    )
    parser.add_argument("--p95", type=float, default=2.0, help="capacity: the most visitors at this p95")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.steps.split(",")]
    os.nice(10)  # the clients share the machine: the app they measure goes first
    print(
        f"{'visitors':>8} {'runs/s':>7} {'p50 s':>6} {'p95 s':>6} {'refused':>7} {'refused95':>9} {'failed':>6}"
        f" {'health s':>8} {'RSS MiB':>7} {'CPU/run s':>9} {'server s':>8} {'page s':>6}"
        f" {'runs/metrics':>11}"
        f" {'refused/metrics':>11}",
        flush=True,
    )
    if args.url:
        steps = asyncio.run(measure(args.url.rstrip("/"), args.pid, counts, args))
    else:
        cgroup = ServerCgroup.make()
        if cgroup is None:
            print("no cgroup can be made here (not root?): the server's own CPU is not shown")
        try:
            with own_server(cgroup=cgroup) as (url, pid):
                steps = asyncio.run(measure(url, pid, counts, args, cgroup))
        finally:
            if cgroup:
                cgroup.remove()
    lightest = next((s for s in steps if s.cpu_per_run), None)
    if lightest is None or lightest.cpu_per_run is None or lightest.cpu_per_run <= 0:
        print("no Run completed: no ceiling, no capacity")
        return 1
    ceiling = (os.cpu_count() or 1) / lightest.cpu_per_run
    # Refusing presses would lower the p95 of those served: a step fits only if it refused
    # at most 1% of its presses.
    fits = [
        s
        for s in steps
        if s.runs
        and (s.p(95) or 0) <= args.p95
        and len(s.refused) <= REFUSED_AT_MOST * (len(s.runs) + len(s.refused))
    ]
    best = max(fits, key=lambda s: s.visitors, default=None)
    print(
        f"CPU ceiling: {ceiling:.2f} Runs/s ({os.cpu_count()} cores / {lightest.cpu_per_run:.3f} CPU-s per Run "
        f"at {lightest.visitors} visitors)"
    )
    if lightest.server_cpu_per_run is not None:
        print(
            f"CPU per Run at {lightest.visitors} visitors: the server's {lightest.server_cpu_per_run:.3f} s "
            f"(its cgroup), the machine's {lightest.cpu_per_run:.3f} s (busy time less this script's)"
        )
    if best is None:
        print(f"capacity: none of the steps held p95 <= {args.p95:g} s with at most 1% refused")
        return 1
    print(
        f"capacity: {best.visitors} visitors at p95 {best.p(95):.2f} s <= {args.p95:g} s, {len(best.refused)} refused, "
        f"{best.runs_per_s:.2f} Runs/s = {best.runs_per_s / ceiling:.2f} of the CPU ceiling"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
