"""Load test: N concurrent headless-Chromium sessions against a running playground.

Each session is one browser tab (one Streamlit session) used the way a person uses it: it opens
the app once, then loops, until the duration is up, over two runs: the gallery's `retracing`
example, chosen in the Example picker (expects 2 traces), and a typed function, pasted over
another example, whose print() carries a token unique to that session and run, which must come
back in that session's Console tab and nowhere else. --fresh-page-per-run reloads the page for
every run instead (a new Streamlit session each time, the browser's heaviest case). It reports
completed runs, errors, p50/p95 time from the Run click to the result, the app's peak RSS (the
Streamlit process and its worker descendants, from /proc), how often the health endpoint failed
meanwhile, and where the machine's CPU went. Each session is its own visitor: its tab sends
X-Forwarded-For 203.0.113.(100 + N), which the server this script starts trusts (an app given
with --url needs PLAYGROUND_CLIENT_IP_HEADER=X-Forwarded-For, or the fair queue counts every
session as one client and lets one of them run at a time). The clock starts after one untimed
warm-up pass (--cold: at once), and the clients run at nice 10 (--client-nice) so that, sharing
the machine, they do not take the cores from the app they measure; Chromium is started without
CAP_SYS_NICE (bench/chromium_low_priority), since as root it raises its own threads to nice 0
and -8, whatever it inherited.

    python bench/load_test.py --sessions 8 --seconds 120            # starts its own server
    python bench/load_test.py --url http://127.0.0.1:8501 --pid 1234  # an app already running
Loopback addresses only: this is a load generator, never to be pointed at someone else's host.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pathlib
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field

from server_cgroup import ServerCgroup

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
# Launched through this wrapper, so that Chromium keeps the niceness the clients run at.
CLIENT_CHROMIUM = str(ROOT / "bench" / "chromium_low_priority")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
CLIENT_HEADER = "X-Forwarded-For"  # own_server trusts it (PLAYGROUND_CLIENT_IP_HEADER)
REFUSED = re.compile(r"LimitError: (.*)")  # how the page shows a run a limit refused


def visitor(index: int) -> str:
    """Session `index`'s address, from the documentation range: a header value, no traffic."""
    return f"203.0.113.{100 + index}"


VIEWPORT = {"width": 1280, "height": 800}  # a laptop screen
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
TYPED = """import tensorflow as tf

@tf.function
def mark(x):
    print("{token}")
    return x + {constant}
"""


@dataclass
class Tally:
    times: dict[str, list[float]] = field(default_factory=lambda: {"retracing": [], "typed": []})
    errors: list[str] = field(default_factory=list)
    crossed: list[str] = field(default_factory=list)

    def completed(self) -> int:
        return sum(len(v) for v in self.times.values())


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# ------------------------------------------------------------------ the server and its memory
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str, timeout: float = 5.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as answer:
            return answer.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def own_server(start_timeout: float = 180.0, cgroup: ServerCgroup | None = None) -> Iterator[tuple[str, int]]:
    port = free_port()
    log = open(os.devnull, "w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        preexec_fn=cgroup.enter if cgroup else None,  # before exec: all it starts is in it too
        stdout=log,
        stderr=subprocess.STDOUT,
        env=dict(
            os.environ,
            PYTHONPATH=str(ROOT),
            # its clients type into the text area
            PLAYGROUND_EDITOR=os.environ.get("PLAYGROUND_EDITOR", "plain"),
            PLAYGROUND_CLIENT_IP_HEADER=CLIENT_HEADER,
        ),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while not healthy(url, 2.0):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not become healthy")
            time.sleep(0.5)
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


def _status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as handle:
            return dict(line.split(":", 1) for line in handle if ":" in line)
    except OSError:
        return {}


def _kib(value: str) -> int:
    return int(value.split()[0]) if value else 0


def process_cpu_s(pid: int | None) -> float | None:
    """One process's own CPU seconds (all its threads; not its children's)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            ppid = _kib(_status(int(entry)).get("PPid", "0"))
            children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


class Sampler(threading.Thread):
    """Once a second: the server's VmHWM, its descendants' VmHWM and summed VmRSS, health, and
    CPU seconds by kind of process."""

    def __init__(self, url: str, pid: int | None) -> None:
        super().__init__(daemon=True)
        self.url, self.pid = url, pid
        self.stop = threading.Event()
        self.server_hwm_kib = 0
        self.child_hwm_kib: dict[int, int] = {}
        self.children_rss_peak_kib = 0
        self.health_checks = 0
        self.health_failures = 0
        self.cpu_s: dict[str, float] = {}  # by kind of process, sampled
        self._ticks: dict[int, int] = {}
        self._primed = False

    def _sample_cpu(self) -> None:
        """Adds each process's CPU since the last look to its kind: sampled, so processes that
        are killed (sandbox workers) still count up to their last sample."""
        tick = os.sysconf("SC_CLK_TCK")
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                with open(f"/proc/{pid}/stat") as f:
                    name, rest = f.read().rsplit(")", 1)
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            ticks = sum(int(v) for v in rest.split()[11:13])
            kind = (
                "sandbox workers"
                if "playground.sandbox." in cmdline
                else "chromium (load generator)"
                if "chrom" in name.lower() or "chrom" in cmdline
                else "streamlit server"
                if pid == self.pid
                else ""
            )
            # Processes already running at the first look count from then; later ones from 0.
            since = self._ticks.get(pid, 0 if self._primed else ticks)
            if kind:
                self.cpu_s[kind] = self.cpu_s.get(kind, 0.0) + (ticks - since) / tick
            self._ticks[pid] = ticks
        self._primed = True

    def run(self) -> None:
        self._sample_cpu()
        while not self.stop.wait(1.0):
            self._sample_cpu()
            self.health_checks += 1
            self.health_failures += 0 if healthy(self.url) else 1
            if self.pid is None:
                continue
            self.server_hwm_kib = max(self.server_hwm_kib, _kib(_status(self.pid).get("VmHWM", "")))
            rss = 0
            for child in descendants(self.pid):
                status = _status(child)
                self.child_hwm_kib[child] = max(
                    self.child_hwm_kib.get(child, 0), _kib(status.get("VmHWM", ""))
                )
                rss += _kib(status.get("VmRSS", ""))
            self.children_rss_peak_kib = max(self.children_rss_peak_kib, rss)


# ------------------------------------------------------------------ one browser session
class Page:
    """One tab and how many results its Streamlit session has shown ("Run N · ..." heads each)."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.page, self.runs = page, 0


async def until(
    check,
    timeout_ms: int,
    every_s: float = 0.25,  # type: ignore[no-untyped-def]
    what: str = "the page",
) -> None:
    """Polls with one DOM query at a time. Playwright's own waits poll on animation frames,
    which makes a waiting tab cost Chromium ~0.09 core; 8 waiting tabs took a third of this
    machine from the app they were measuring."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not await check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_ms / 1000:g} s for {what}")
        await asyncio.sleep(every_s)


async def idle(page, timeout_ms: int) -> None:  # type: ignore[no-untyped-def]
    await until(lambda: _present(page.locator(IDLE)), timeout_ms, what="the script to finish")


async def _present(locator) -> bool:  # type: ignore[no-untyped-def]
    return await locator.count() > 0


async def click_run(tab: Page, timeout_ms: int) -> tuple[float, str]:
    """Clicks Run; returns (seconds until this run's own result or a refusal is on screen, ""
    for a result or the refusal's text). The page still shows the previous result meanwhile,
    so the wait is for the new run's number; a refused run takes no number."""
    page = tab.page
    await idle(page, timeout_ms)
    started = time.monotonic()
    await page.locator(".st-key-run button").click()
    tab.runs += 1
    result = page.get_by_text(re.compile(rf"^Run {tab.runs} · TensorFlow"))
    refusal = page.get_by_text(REFUSED)

    async def ended() -> bool:
        return await _present(result) or await _present(refusal)

    await until(ended, timeout_ms, every_s=0.1, what=f"run {tab.runs}")
    elapsed = time.monotonic() - started
    if await _present(result):
        return elapsed, ""
    tab.runs -= 1
    return elapsed, (await refusal.first.inner_text()).strip()


async def run_and_time(tab: Page, timeout_ms: int) -> float:
    """Seconds from the Run click until this run's own result is on screen."""
    elapsed, refusal = await click_run(tab, timeout_ms)
    if refusal:  # a limit said no: an error, with the app's own words
        raise RuntimeError(f"run {tab.runs + 1} refused: {refusal[:120]}")
    await idle(tab.page, timeout_ms)
    return elapsed


async def pick_example(tab: Page, slug: str, timeout_ms: int) -> None:
    """Chooses an example in the gallery picker, as a person does, and waits until its source
    is in the editor (a Run clicked before that would send the editor's old text)."""
    from playground import gallery  # plain data, no TensorFlow

    example = gallery.BY_SLUG[slug]
    page = tab.page
    picker = page.locator(".st-key-example").get_by_role("combobox")
    if not (await picker.input_value(timeout=timeout_ms)).endswith(f"({slug})"):
        await picker.click()
        await picker.fill(f"({slug})")
        await page.get_by_role("option", name=f"{example.title} ({slug})", exact=True).click(
            timeout=timeout_ms
        )
    source = page.locator(".st-key-source textarea")
    await until(lambda: _value_is(source, example.source), timeout_ms, what=f"the {slug} source")
    await idle(page, timeout_ms)


async def _value_is(locator, expected: str) -> bool:  # type: ignore[no-untyped-def]
    return await locator.input_value() == expected


async def open_app(tab: Page, url: str, timeout_ms: int) -> None:
    page, tab.runs = tab.page, 0  # a new Streamlit session counts from 1 again
    await page.goto(f"{url}/?example=retracing", timeout=timeout_ms)
    await until(lambda: _present(page.locator(".st-key-source textarea")), timeout_ms, what="the editor")
    await idle(page, timeout_ms)


async def retracing(tab: Page, timeout_ms: int) -> float:
    await pick_example(tab, "retracing", timeout_ms)
    elapsed = await run_and_time(tab, timeout_ms)
    metric = tab.page.get_by_test_id("stMetric").filter(has_text="Traces")
    traces = (await metric.get_by_test_id("stMetricValue").inner_text()).strip()
    if traces != "2":
        raise AssertionError(f"retracing example: {traces} traces, expected 2")
    return elapsed


async def typed(tab: Page, token: str, constant: int, timeout_ms: int) -> tuple[float, str]:
    await pick_example(tab, "tf-print", timeout_ms)  # then paste over it
    page = tab.page
    source = page.locator(".st-key-source textarea")
    await source.fill(TYPED.format(token=token, constant=constant))
    await source.press("Control+Enter")
    function = page.locator(".st-key-function").get_by_role("combobox")

    async def picked_mark() -> bool:
        return await function.count() > 0 and (await function.input_value()).startswith("mark")

    await until(picked_mark, timeout_ms, what="the function picker to offer mark")
    await idle(page, timeout_ms)
    calls = page.locator(".st-key-calls textarea")
    await calls.fill("float32[2]")
    await calls.press("Control+Enter")
    elapsed = await run_and_time(tab, timeout_ms)
    await page.get_by_role("tab", name="Console").click()  # only the open tab is drawn
    console = page.get_by_test_id("stCode").filter(has_text=token)
    try:
        await until(lambda: _present(console), timeout_ms // 4, what="the Console tab")
    except TimeoutError:
        pass  # counted as a missing token
    await idle(page, timeout_ms)
    shown = " ".join(await page.get_by_test_id("stCode").all_inner_texts())
    return elapsed, shown


async def session(
    index: int,
    browser,
    url: str,
    deadline: float,
    tally: Tally,
    timeout_ms: int,
    fresh_page: bool,
    runs: int = 0,
) -> None:  # type: ignore[no-untyped-def]
    """Loops until the deadline (or for exactly `runs` runs, when given)."""
    # Each session is its own visitor to the fair queue, which counts clients, not tabs.
    context = await browser.new_context(viewport=VIEWPORT, extra_http_headers={CLIENT_HEADER: visitor(index)})
    page = Page(await context.new_page())
    run = 0
    try:
        await open_app(page, url, timeout_ms)
        while (run < runs) if runs else (time.monotonic() < deadline):
            run += 1
            kind = "retracing" if run % 2 else "typed"
            try:
                if fresh_page and run > 1:
                    await open_app(page, url, timeout_ms)
                if kind == "retracing":
                    tally.times[kind].append(await retracing(page, timeout_ms))
                    continue
                token = f"loadtest-s{index}-r{run}-{os.getpid()}"
                elapsed, shown = await typed(page, token, index * 1000 + run, timeout_ms)
                if token not in shown:
                    tally.errors.append(f"session {index} run {run}: its own token is missing")
                    continue
                foreign = [w for w in shown.split() if w.startswith("loadtest-") and w != token]
                if foreign:
                    tally.crossed.append(f"session {index} run {run} saw {foreign}")
                    continue
                tally.times[kind].append(elapsed)
            except Exception as error:  # noqa: BLE001 - every failure is a result to count
                tally.errors.append(
                    f"session {index} run {run} ({kind}): "
                    f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"
                )
                await open_app(page, url, timeout_ms)  # start again from a known page
    finally:
        await context.close()


async def warm_up(browser, url: str, timeout_ms: int) -> None:  # type: ignore[no-untyped-def]
    """One untimed pass of both runs, so the clock starts on a warm app (workers started, page
    assets cached), as a hosted app is when its users arrive."""
    tally = Tally()
    await session(-1, browser, url, time.monotonic(), tally, timeout_ms, False, runs=2)
    if tally.errors or tally.completed() != 2:
        raise RuntimeError(f"the warm-up run failed: {tally.errors}")


async def drive(
    url: str, sessions: int, seconds: float, timeout_ms: int, fresh_page: bool, cold: bool, on_start
) -> Tally:  # type: ignore[no-untyped-def]
    from playwright.async_api import async_playwright

    tally = Tally()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CLIENT_CHROMIUM, args=CHROMIUM_ARGS)
        try:
            if not cold:
                await warm_up(browser, url, timeout_ms)
            on_start()
            deadline = time.monotonic() + seconds
            await asyncio.gather(
                *(session(i, browser, url, deadline, tally, timeout_ms, fresh_page) for i in range(sessions))
            )
        finally:
            await browser.close()
    return tally


# ------------------------------------------------------------------ report
def report(tally: Tally, sampler: Sampler, sessions: int, seconds: float, wall: float) -> dict:
    everything = tally.times["retracing"] + tally.times["typed"]

    def summary(values: list[float]) -> dict:
        return {
            "runs": len(values),
            "p50_s": round(statistics.median(values), 2) if values else None,
            "p95_s": round(percentile(values, 0.95), 2) if values else None,
        }

    return {
        "sessions": sessions,
        "seconds": seconds,
        "wall_s": round(wall, 1),
        "completed_runs": tally.completed(),
        "errors": len(tally.errors),
        "crossed_results": len(tally.crossed),
        "time_to_result": summary(everything),
        "retracing": summary(tally.times["retracing"]),
        "typed": summary(tally.times["typed"]),
        "server_peak_rss_mib": round(sampler.server_hwm_kib / 1024, 1) if sampler.pid else None,
        "worker_peak_rss_mib_max": round(max(sampler.child_hwm_kib.values(), default=0) / 1024, 1)
        if sampler.pid
        else None,
        "workers_peak_rss_sum_mib": round(sampler.children_rss_peak_kib / 1024, 1) if sampler.pid else None,
        "health_failures": f"{sampler.health_failures}/{sampler.health_checks}",
        "error_samples": tally.errors[:10],
        "crossed_samples": tally.crossed[:10],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--url", default="", help="a running app on a loopback address")
    parser.add_argument("--pid", type=int, default=None, help="its server pid, for peak RSS")
    parser.add_argument(
        "--run-timeout",
        type=float,
        default=120.0,
        help="seconds one run may take (a cold worker imports TensorFlow)",
    )
    parser.add_argument(
        "--client-nice",
        type=int,
        default=10,
        help="niceness of the Chromium clients: on one box they would otherwise "
        "take the CPU from the app they measure (0 for equal footing)",
    )
    parser.add_argument(
        "--cold", action="store_true", help="start the clock at once: no warm-up run before the sessions"
    )
    parser.add_argument(
        "--fresh-page-per-run",
        action="store_true",
        help="reload the page (a new Streamlit session) before every run",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.sessions <= 64 or not 1 <= args.seconds <= 3600:
        parser.error("--sessions 1..64 and --seconds 1..3600")
    if args.url and urllib.parse.urlsplit(args.url).hostname not in LOOPBACK:
        parser.error("--url must be a loopback address (127.0.0.1, localhost, ::1)")
    if not os.path.exists(CHROMIUM):
        parser.error(f"{CHROMIUM} is missing (apt-get install chromium)")
    server = contextlib.nullcontext((args.url.rstrip("/"), args.pid)) if args.url else own_server()
    with server as (url, pid):
        sampler = Sampler(url, pid)
        clock: dict[str, float] = {}

        def start() -> None:
            sampler.start()
            clock["started"] = time.monotonic()

        # The server already runs (at our priority); Playwright's driver and Chromium inherit this.
        os.nice(max(0, args.client_nice))
        tally = asyncio.run(
            drive(
                url,
                args.sessions,
                args.seconds,
                int(args.run_timeout * 1000),
                args.fresh_page_per_run,
                args.cold,
                start,
            )
        )
        wall = time.monotonic() - clock["started"]
        sampler.stop.set()
        sampler.join(timeout=10)
    result = report(tally, sampler, args.sessions, args.seconds, wall)
    # Where the machine's CPU went: on one box the load generator competes with the server.
    result["pages"] = "fresh page per run" if args.fresh_page_per_run else "one page per session"
    result["client_nice"] = max(0, args.client_nice)
    result["warm_up"] = "none (--cold)" if args.cold else "one untimed run of each kind first"
    result["viewport"] = f"{VIEWPORT['width']}x{VIEWPORT['height']}"
    result["cpu_s"] = {
        "available": round(wall * (os.cpu_count() or 1), 1),
        **{k: round(v, 1) for k, v in sorted(sampler.cpu_s.items())},
    }
    print(json.dumps(result, indent=2))
    return 0 if result["errors"] == 0 and result["crossed_results"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
