"""Front door bench (issue 24): one attacker and one visitor, on the page's websocket and on HTTP.

The attacker speaks Streamlit's websocket protocol without a browser (tests/support/streamlit_wire.py);
the visitor is measured twice: a raw client timing page runs of `?example=retracing` (the
BackMsg a browser sends on page open), and Chromium clicking Run on the `retracing` example.
Attacker and visitors are distinct clients: own_server trusts X-Forwarded-For (attacker
203.0.113.66, visitors 203.0.113.100/101), and on 127.0.0.1 the raw clients also bind distinct
loopback source addresses (attacker 127.0.0.2, raw visitor 127.0.0.3), so a proxy that writes
its peer into X-Forwarded-For still tells them apart. Scenarios, each timed from a health poll
every 0.2 s:

  baseline    the visitor alone: page-run p50/p95 (raw), Run->result (Chromium), health
  flood       --connections sessions from one client, each rerunning the page as fast as the
              server answers, for --seconds: attacker runs served, the visitor's page-run p95
              (target <= max(1 s, 3 x alone)), Run->result p95 (< 10 s), health max (<= 1 s)
  big message one 100 MB BackMsg: server RSS growth (< 50 MB) and how the session was closed
  idle        --idle sessions from one client: open after --idle-seconds (<= --session-limit),
              RSS growth (< 400 MB), the visitor still served
  malformed   random bytes, a truncated BackMsg, a BackMsg with unknown fields, a text frame:
              each closes at most its own session; the visitor's session stays open and served
  origins     --origins upgrades with Origin: https://evil.example: time to refusal (< 100 ms
              here; the real 20-s stall needs a network without DNS, which the tests cover)
  slowloris   --slow sockets dribbling a request header one byte per --slow-interval s: health
              stays fast; how many the server (or proxy) closed, and when

    python bench/front_door_test.py --seconds 45                      # starts its own server
    python bench/front_door_test.py --through-proxy                   # ... behind the deployment's nginx
    python bench/front_door_test.py --url http://127.0.0.1:8501 --pid 1234   # an app already running
    python bench/front_door_test.py --url https://127.0.0.1:8443 --pid 1234  # unverified TLS

Prints a table (figure, target, measured, pass/fail) and exits 1 if a target is missed. The
clients run at nice --client-nice (Chromium through bench/chromium_low_priority), so on one box
they do not take the cores from the server they measure; the attacker is its own process.
Loopback addresses only: this is an attack generator, never to be pointed at someone else's host.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import ipaddress
import multiprocessing
import os
import pathlib
import random
import ssl
import statistics
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT), str(ROOT / "bench")]

from load_test import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    CLIENT_CHROMIUM,
    CLIENT_HEADER,
    LOOPBACK,
    VIEWPORT,
    Page,
    click_run,
    open_app,
    own_server,
    percentile,
    visitor,
)
from streamlit_wire import Closed, Refused, Session, SessionClosed, rerun_message, text, unverified_tls  # noqa: E402

ATTACKER_IP, VISITOR_IP, BROWSER_IP = "203.0.113.66", visitor(0), visitor(1)
ATTACKER_SOURCE, VISITOR_SOURCE = "127.0.0.2", "127.0.0.3"
QUERY = "example=retracing"
EVIL_ORIGIN = "https://evil.example"
MB = 2**20


# ------------------------------------------------------------------ the table
@dataclass
class Row:
    scenario: str
    figure: str
    target: str
    measured: str
    ok: bool | None  # None: a figure with no target


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)

    def add(
        self, scenario: str, figure: str, measured: str, target: str = "", ok: bool | None = None
    ) -> None:
        self.rows.append(Row(scenario, figure, target, measured, ok))
        mark = "" if ok is None else ("  PASS" if ok else "  FAIL")
        print(
            f"  [{scenario}] {figure}: {measured}" + (f"  (target {target})" if target else "") + mark,
            flush=True,
        )

    def table(self) -> str:
        head = ("scenario", "figure", "target", "measured", "result")
        body = [
            (
                r.scenario,
                r.figure,
                r.target or "-",
                r.measured,
                "info" if r.ok is None else ("pass" if r.ok else "FAIL"),
            )
            for r in self.rows
        ]
        widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(5)]
        line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
        return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, body)])

    def failed(self) -> list[Row]:
        return [r for r in self.rows if r.ok is False]


def seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.0f} ms"


def p50_p95(values: list[float]) -> tuple[float | None, float | None]:
    return (statistics.median(values) if values else None, percentile(values, 0.95))


# ------------------------------------------------------------------ the machine
def rss_kib(pid: int | None) -> int | None:
    if pid is None:
        return None
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


class RssPeak(threading.Thread):
    """The server's VmRSS every 20 ms: its peak above the value when started."""

    def __init__(self, pid: int | None) -> None:
        super().__init__(daemon=True)
        self.pid, self.stop = pid, threading.Event()
        self.before = rss_kib(pid)
        self.peak = self.before or 0

    def run(self) -> None:
        while not self.stop.wait(0.02):
            self.peak = max(self.peak, rss_kib(self.pid) or 0)

    def __enter__(self) -> RssPeak:
        if self.pid is not None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.is_alive():
            self.join(timeout=2)

    def growth_mb(self) -> float | None:
        return None if self.before is None else (self.peak - self.before) / 1024


class Health(threading.Thread):
    """GET /_stcore/health every 0.2 s for the whole bench: (start, seconds or None) samples.
    A stalled answer is one long sample, not many missing ones."""

    def __init__(self, url: str, every_s: float = 0.2, timeout_s: float = 20.0) -> None:
        super().__init__(daemon=True)
        self.url, self.every_s, self.timeout_s = f"{url}/_stcore/health", every_s, timeout_s
        self.samples: list[tuple[float, float | None]] = []
        self.stop = threading.Event()
        self.context = unverified_tls() if url.startswith("https:") else None

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=self.timeout_s, context=self.context) as answer:
                    answer.read()
                    took: float | None = time.monotonic() - started if answer.status == 200 else None
            except OSError:
                took = None
            self.samples.append((started, took))
            self.stop.wait(max(0.0, self.every_s - (time.monotonic() - started)))

    def window(self, since: float, until: float) -> tuple[int, int, float | None, float | None]:
        """(polls, failures, p50, max) of the polls that overlap [since, until]; a failed poll
        counts as the poll's timeout."""
        picked = [
            (s, t)
            for s, t in list(self.samples)
            if s <= until and s + (t if t is not None else self.timeout_s) >= since
        ]
        good = [t for _, t in picked if t is not None]
        failures = len(picked) - len(good)
        worst = max(good, default=None)
        if failures:
            worst = max(worst or 0.0, self.timeout_s)
        return len(picked), failures, (statistics.median(good) if good else None), worst


def health_rows(
    report: Report, scenario: str, health: Health, since: float, target_s: float | None = 1.0
) -> None:
    polls, failures, p50, worst = health.window(since, time.monotonic())
    measured = f"max {seconds(worst)}, p50 {ms(p50)}, {failures}/{polls} failed"
    if target_s is None:
        report.add(scenario, "/_stcore/health", measured)
    else:
        report.add(
            scenario,
            "/_stcore/health max",
            measured,
            f"<= {target_s:g} s",
            worst is not None and worst <= target_s and failures == 0,
        )


# ------------------------------------------------------------------ who is who
@dataclass(frozen=True)
class Actor:
    ip: str  # the X-Forwarded-For value (trusted by own_server)
    source: str | None  # a loopback source address, where the target is 127.0.0.1

    def open_args(self, header: str) -> dict:
        return {"client_ip": self.ip, "client_header": header, "source": self.source}


def binds(url: str) -> bool:
    """Distinct source addresses work only towards an IPv4 loopback address."""
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        return ipaddress.ip_address(host) in ipaddress.ip_network("127.0.0.0/8")
    except ValueError:
        return False


# ------------------------------------------------------------------ the raw visitor
async def visitor_runs(
    url: str,
    actor: Actor,
    header: str,
    *,
    runs: int = 0,
    until: float = 0.0,
    interval_s: float = 1.0,
    timeout_s: float = 60.0,
    errors: list[str] | None = None,
) -> list[float]:
    """Page runs on one session, one every interval_s (a person does not rerun faster), for
    `runs` runs or until `until`. A run that fails counts as timeout_s and is listed in errors."""
    times: list[float] = []
    errors = errors if errors is not None else []
    session: Session | None = None
    try:
        while (len(times) < runs) if runs else (time.monotonic() < until):
            try:
                if session is None or not session.is_open:
                    session = await Session.open(url, **actor.open_args(header))
                times.append((await session.rerun(QUERY, timeout=timeout_s)).seconds)
            except (Refused, SessionClosed, asyncio.TimeoutError) as error:
                times.append(timeout_s)
                errors.append(f"{type(error).__name__}: {error}")
                if session is not None:
                    await session.close()
                session = None
                await asyncio.sleep(0.5)
            await asyncio.sleep(interval_s)
    finally:
        if session is not None:
            await session.close()
    return times


async def one_page_run(url: str, actor: Actor, header: str, timeout_s: float = 60.0) -> str:
    """'0.23 s' if a fresh session of this visitor got one page run, else why not."""
    try:
        session = await Session.open(url, **actor.open_args(header))
        async with session:
            run = await session.rerun(QUERY, timeout=timeout_s)
        return f"{run.seconds:.2f} s" if run.status == "FINISHED_SUCCESSFULLY" else run.status
    except (Refused, SessionClosed, asyncio.TimeoutError) as error:
        return f"not served: {type(error).__name__}: {error}"


# ------------------------------------------------------------------ the browser visitor
class Browser:
    """One Chromium tab of its own visitor, opened on ?example=retracing."""

    def __init__(self, url: str, header: str, timeout_s: float) -> None:
        self.url, self.header, self.timeout_ms = url, header, int(timeout_s * 1000)
        self.tab: Page | None = None

    async def __aenter__(self) -> Browser:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(
            executable_path=CLIENT_CHROMIUM, args=CHROMIUM_ARGS
        )
        context = await self._browser.new_context(
            viewport=VIEWPORT, ignore_https_errors=True, extra_http_headers={self.header: BROWSER_IP}
        )
        self.tab = Page(await context.new_page())
        await open_app(self.tab, self.url, self.timeout_ms)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._browser.close()
        await self._playwright.stop()

    async def run(self) -> tuple[float, str]:
        """(Run->result seconds, "" or the refusal's or failure's text); a failure counts as
        the timeout and the page is opened again."""
        assert self.tab is not None
        try:
            return await click_run(self.tab, self.timeout_ms)
        except Exception as error:  # noqa: BLE001 - every failure is a figure
            with contextlib.suppress(Exception):
                await open_app(self.tab, self.url, self.timeout_ms)
            return self.timeout_ms / 1000, f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"

    async def runs(
        self, *, count: int = 0, until: float = 0.0, every_s: float = 4.0
    ) -> tuple[list[float], list[str]]:
        """One Run every every_s at most: a person reading results, and under the app's own
        per-visitor run limit (20 a minute), which a faster loop would measure instead."""
        times, problems = [], []
        while (len(times) < count) if count else (time.monotonic() < until):
            started = time.monotonic()
            took, problem = await self.run()
            times.append(took)
            if problem:
                problems.append(problem)
            await asyncio.sleep(max(0.5, every_s - (time.monotonic() - started)))
        return times, problems


# ------------------------------------------------------------------ the attacker (own process)
def flood_process(
    url: str, actor: Actor, header: str, connections: int, seconds_: float, wait_s: float, nice: int
) -> dict:
    """Runs in its own process: `connections` sessions, each sending a page-open rerun, waiting
    up to wait_s for it to finish and sending the next at once; a closed or refused session is
    opened again after 0.5 s. Returns counts."""
    os.nice(max(0, nice - os.nice(0)))
    return asyncio.run(_flood(url, actor, header, connections, seconds_, wait_s))


async def _flood(
    url: str, actor: Actor, header: str, connections: int, seconds_: float, wait_s: float
) -> dict:
    tally = {
        "sent": 0,
        "served": 0,
        "ended_early": 0,
        "unanswered": 0,
        "opened": 0,
        "refused": 0,
        "closed": 0,
        "close_codes": {},
        "refused_status": {},
    }
    deadline = time.monotonic() + seconds_

    async def one() -> None:
        while time.monotonic() < deadline:
            try:
                session = await Session.open(url, **actor.open_args(header), timeout=10)
            except Refused as refusal:
                tally["refused"] += 1
                key = str(refusal.status)
                tally["refused_status"][key] = tally["refused_status"].get(key, 0) + 1
                await asyncio.sleep(0.5)
                continue
            tally["opened"] += 1
            try:
                while time.monotonic() < deadline:
                    tally["sent"] += 1
                    try:
                        run = await session.rerun(
                            QUERY, timeout=min(wait_s, max(0.1, deadline - time.monotonic()))
                        )
                    except asyncio.TimeoutError:
                        tally["unanswered"] += 1
                        continue
                    tally["served" if run.status == "FINISHED_SUCCESSFULLY" else "ended_early"] += 1
            except SessionClosed as closed:
                tally["closed"] += 1
                key = str(closed.closed.code)
                tally["close_codes"][key] = tally["close_codes"].get(key, 0) + 1
                await asyncio.sleep(0.5)
            finally:
                await session.close()

    await asyncio.gather(*(one() for _ in range(connections)))
    return tally


# ------------------------------------------------------------------ scenarios
@dataclass
class Bench:
    url: str
    pid: int | None
    header: str
    args: argparse.Namespace
    health: Health
    report: Report
    attacker: Actor
    raw_visitor: Actor
    alone_p95: float | None = None

    async def baseline(self, browser: Browser | None) -> None:
        a = self.args
        since = time.monotonic()
        await visitor_runs(self.url, self.raw_visitor, self.header, runs=2)  # warm, untimed
        times = await visitor_runs(
            self.url, self.raw_visitor, self.header, runs=a.runs, interval_s=a.visitor_interval
        )
        p50, p95 = p50_p95(times)
        self.alone_p95 = p95
        self.report.add(
            "baseline",
            f"visitor page run alone (raw, n={len(times)})",
            f"p50 {seconds(p50)}, p95 {seconds(p95)}",
        )
        if browser is not None:
            times, problems = await browser.runs(count=a.browser_runs, every_s=a.browser_interval)
            p50, p95 = p50_p95(times)
            self.report.add(
                "baseline",
                f"visitor Run->result alone (Chromium, n={len(times)})",
                f"p50 {seconds(p50)}, p95 {seconds(p95)}"
                + (f"; {len(problems)} failed: {problems[0]}" if problems else ""),
            )
        health_rows(self.report, "baseline", self.health, since, target_s=None)

    async def flood(self, browser: Browser | None) -> None:
        a = self.args
        pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        loop = asyncio.get_running_loop()
        since = time.monotonic()
        attack = loop.run_in_executor(
            pool,
            flood_process,
            self.url,
            self.attacker,
            self.header,
            a.connections,
            a.seconds,
            a.attack_wait,
            a.client_nice,
        )
        await asyncio.sleep(min(3.0, a.seconds / 10))  # the attacker's sessions are open
        until = since + a.seconds
        errors: list[str] = []
        jobs = [
            visitor_runs(
                self.url,
                self.raw_visitor,
                self.header,
                until=until,
                interval_s=a.visitor_interval,
                errors=errors,
            )
        ]
        if browser is not None:
            jobs.append(browser.runs(until=until, every_s=a.browser_interval))
        results = await asyncio.gather(*jobs)
        tally = await attack
        pool.shutdown()
        ended = time.monotonic()
        self.report.add(
            "flood",
            f"attacker ({a.connections} connections, {a.seconds:g} s) page runs served",
            f"{tally['served']} served, {tally['ended_early']} cut short, "
            f"{tally['unanswered']} unanswered in {a.attack_wait:g} s, of {tally['sent']} sent; "
            f"sessions {tally['opened']} opened, {tally['refused']} refused "
            f"{tally['refused_status'] or ''}, {tally['closed']} closed {tally['close_codes'] or ''}",
        )
        times = results[0]
        p50, p95 = p50_p95(times)
        limit = max(1.0, 3 * (self.alone_p95 or 0))
        self.report.add(
            "flood",
            f"visitor page run under flood (raw, n={len(times)})",
            f"p95 {seconds(p95)}, p50 {seconds(p50)}, {len(errors)} failed"
            + (f" ({errors[0][:80]})" if errors else ""),
            f"p95 <= {limit:.2f} s",
            p95 is not None and p95 <= limit and not errors,
        )
        if browser is not None:
            times, problems = results[1]
            p50, p95 = p50_p95(times)
            self.report.add(
                "flood",
                f"visitor Run->result under flood (Chromium, n={len(times)})",
                f"p95 {seconds(p95)}, p50 {seconds(p50)}, {len(problems)} failed"
                + (f" ({problems[0][:80]})" if problems else ""),
                "p95 < 10 s",
                p95 is not None and p95 < 10 and not problems,
            )
        polls, failures, p50h, worst = self.health.window(since, ended)
        self.report.add(
            "flood",
            "/_stcore/health max",
            f"max {seconds(worst)}, p50 {ms(p50h)}, {failures}/{polls} failed",
            "<= 1 s",
            worst is not None and worst <= 1.0 and failures == 0,
        )
        await self.settle()

    async def settle(self, limit_s: float = 60.0) -> None:
        """Waits until the visitor gets a page run within 2x alone again (the server has
        stopped what the attacker left running), at most limit_s."""
        deadline = time.monotonic() + limit_s
        target = max(1.0, 2 * (self.alone_p95 or 0.5))
        while time.monotonic() < deadline:
            times = await visitor_runs(
                self.url, self.raw_visitor, self.header, runs=1, interval_s=0, timeout_s=30
            )
            if times and times[0] <= target:
                return
            await asyncio.sleep(1)

    async def big_message(self) -> None:
        size = self.args.big_mb * MB
        payload = rerun_message(QUERY, [text("$$ID-0-source", "a" * size)])
        scenario = f"{self.args.big_mb} MB message"
        try:
            session = await Session.open(self.url, **self.attacker.open_args(self.header))
        except Refused as refusal:
            self.report.add(scenario, "upgrade", f"refused ({refusal.status})")
            return
        sent = "sent whole"
        with RssPeak(self.pid) as rss:
            started = time.monotonic()
            try:
                await asyncio.wait_for(session.send_raw(payload), 60)
            except SessionClosed:
                sent = f"send cut after {time.monotonic() - started:.2f} s"
            except asyncio.TimeoutError:
                sent = "send still blocked after 60 s"
            closed = await session.wait_closed(30)
            await asyncio.sleep(1.0)  # what the server allocated shows by now
        await session.close()
        del payload
        growth = rss.growth_mb()
        self.report.add(
            scenario,
            "server RSS growth",
            "n/a (no --pid)" if growth is None else f"{growth:.1f} MB",
            "< 50 MB",
            None if growth is None else growth < 50,
        )
        self.report.add(
            scenario,
            "the server's answer",
            describe(closed, time.monotonic() - started) + f"; {sent}",
            "session closed",
            closed is not None,
        )
        served = await one_page_run(self.url, self.raw_visitor, self.header)
        self.report.add(scenario, "visitor served after", served, "served", served.endswith(" s"))

    async def compressed(self) -> None:
        """Permessage-deflate: a small frame that inflates to 100 MB, if the server offers it."""
        scenario = f"{self.args.big_mb} MB deflated"
        try:
            session = await Session.open(self.url, **self.attacker.open_args(self.header), compression=True)
        except Refused as refusal:
            self.report.add(scenario, "upgrade", f"refused ({refusal.status})")
            return
        if not session.ws.protocol.extensions:
            await session.close()
            self.report.add(scenario, "permessage-deflate", "not negotiated: nothing to inflate")
            return
        payload = rerun_message(QUERY, [text("$$ID-0-source", "a" * (self.args.big_mb * MB))])
        with RssPeak(self.pid) as rss:
            started = time.monotonic()
            with contextlib.suppress(SessionClosed, asyncio.TimeoutError):
                await asyncio.wait_for(session.send_raw(payload), 60)
            closed = await session.wait_closed(30)
            await asyncio.sleep(1.0)
        await session.close()
        growth = rss.growth_mb()
        self.report.add(
            scenario,
            "server RSS growth",
            "n/a" if growth is None else f"{growth:.1f} MB",
            "< 50 MB",
            None if growth is None else growth < 50,
        )
        self.report.add(
            scenario,
            "the server's answer",
            describe(closed, time.monotonic() - started),
            "session closed",
            closed is not None,
        )

    async def idle(self) -> None:
        a = self.args
        scenario = f"{a.idle} idle sessions"
        sessions: list[Session] = []
        refusals: dict[str, int] = {}
        with RssPeak(self.pid) as rss:

            async def open_one() -> None:
                try:
                    sessions.append(
                        await Session.open(self.url, **self.attacker.open_args(self.header), timeout=30)
                    )
                except Refused as refusal:
                    refusals[str(refusal.status)] = refusals.get(str(refusal.status), 0) + 1

            for start in range(0, a.idle, 25):
                await asyncio.gather(*(open_one() for _ in range(start, min(a.idle, start + 25))))
            accepted = len(sessions)
            await asyncio.sleep(a.idle_seconds)
            still = [s for s in sessions if s.is_open]
            codes: dict[str, int] = {}
            for s in sessions:
                if s.closed is not None:
                    codes[str(s.closed.code)] = codes.get(str(s.closed.code), 0) + 1
            served = await one_page_run(self.url, self.raw_visitor, self.header)
        self.report.add(
            scenario,
            f"open after {a.idle_seconds:g} s",
            f"{len(still)} "
            f"(upgrades accepted {accepted}, refused {sum(refusals.values())} {refusals or ''}, "
            f"closed later {codes or 0})",
            f"<= {a.session_limit}",
            len(still) <= a.session_limit,
        )
        growth = rss.growth_mb()
        self.report.add(
            scenario,
            "server RSS growth",
            "n/a (no --pid)" if growth is None else f"{growth:.1f} MB",
            "< 400 MB",
            None if growth is None else growth < 400,
        )
        self.report.add(scenario, "visitor served meanwhile", served, "served", served.endswith(" s"))
        await asyncio.gather(*(s.close() for s in sessions))

    async def malformed(self) -> None:
        scenario = "malformed"
        valid = rerun_message(QUERY)
        unknown = bytes([0xB8, 0x3E, 0x01])  # field 999, varint 1: unknown to BackMsg
        kinds = {
            "random bytes": random.Random(24).randbytes(4096),
            "truncated BackMsg": valid[: len(valid) // 2],
            "BackMsg + unknown field": valid + unknown,
            "only an unknown field": unknown,
            "text frame": "rerun please",
            "empty frame": b"",
        }
        try:
            watched = await Session.open(self.url, **self.raw_visitor.open_args(self.header))
        except Refused as refusal:
            self.report.add(scenario, "the visitor's session", f"refused ({refusal.status})", "open", False)
            return
        await watched.rerun(QUERY)
        for name, payload in kinds.items():
            try:
                session = await Session.open(self.url, **self.attacker.open_args(self.header))
            except Refused as refusal:
                self.report.add(scenario, name, f"upgrade refused ({refusal.status})")
                continue
            finished = len(session.finished)
            with contextlib.suppress(SessionClosed):
                await session.send_raw(payload)
            closed = await session.wait_closed(3)
            ran = len(session.finished) > finished
            self.report.add(scenario, name, describe(closed) + ("; the page ran" if ran else ""))
            await session.close()
        still_open = watched.is_open
        served = "not open"
        if still_open:
            with contextlib.suppress(SessionClosed, asyncio.TimeoutError):
                served = f"{(await watched.rerun(QUERY)).seconds:.2f} s"
        await watched.close()
        self.report.add(
            scenario,
            "the visitor's session after all of them",
            f"{'open' if still_open else describe(watched.closed)}, page run {served}",
            "open and served",
            still_open and served.endswith(" s"),
        )

    async def origins(self) -> None:
        a = self.args
        scenario = "foreign Origin"
        since = time.monotonic()
        times: list[float] = []
        answers: dict[str, int] = {}
        for _ in range(a.origins):
            await asyncio.sleep(0.1)  # paced, so that health polls fall among them
            started = time.monotonic()
            try:
                session = await Session.open(
                    self.url, **self.attacker.open_args(self.header), origin=EVIL_ORIGIN, timeout=60
                )
            except Refused as refusal:
                times.append(refusal.seconds)
                key = f"HTTP {refusal.status}"
            else:
                closed = await session.wait_closed(60)
                times.append(time.monotonic() - started)
                key = "accepted, still open" if closed is None else f"closed {closed.code}"
                await session.close()
            answers[key] = answers.get(key, 0) + 1
        p50, _ = p50_p95(times)
        worst = max(times, default=None)
        self.report.add(
            scenario,
            f"time to refusal (n={len(times)})",
            f"max {ms(worst)}, p50 {ms(p50)}; {answers}",
            "< 100 ms",
            worst is not None and worst < 0.1 and "accepted, still open" not in answers,
        )
        health_rows(self.report, scenario, self.health, since)

    async def slowloris(self) -> None:
        a = self.args
        scenario = "slowloris"
        parts = urllib.parse.urlsplit(self.url)
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (443 if parts.scheme == "https" else 80)
        context = unverified_tls() if parts.scheme == "https" else None
        head = f"GET / HTTP/1.1\r\nHost: {parts.netloc}\r\nUser-Agent: slow\r\n".encode()
        dribble = b"X-Slow: " + b"a" * 10_000
        since = time.monotonic()
        deadline = since + a.slow_seconds
        closed_after: list[float] = []
        refused = [0]

        async def one(index: int) -> None:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        host,
                        port,
                        ssl=context,
                        server_hostname=host if context else None,
                        local_addr=(self.attacker.source, 0) if self.attacker.source else None,
                    ),
                    10,
                )
                writer.write(head)
                await writer.drain()
            except (OSError, asyncio.TimeoutError, ssl.SSLError):
                refused[0] += 1
                return
            opened = time.monotonic()
            try:
                for byte in dribble:
                    if reader.at_eof() or writer.is_closing():
                        break
                    try:
                        answer = await asyncio.wait_for(reader.read(4096), a.slow_interval)
                        if not answer:  # EOF: the server closed it
                            break
                        continue  # an answer (408, 400): wait for EOF
                    except asyncio.TimeoutError:
                        pass
                    if time.monotonic() >= deadline:
                        return
                    writer.write(bytes([byte]))
                    await writer.drain()
                else:
                    return
                closed_after.append(time.monotonic() - opened)
            except (OSError, ssl.SSLError):
                closed_after.append(time.monotonic() - opened)
            finally:
                writer.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer.wait_closed(), 2)

        await asyncio.gather(*(one(i) for i in range(a.slow)))
        p50, _ = p50_p95(closed_after)
        self.report.add(
            scenario,
            f"{a.slow} sockets, a byte every {a.slow_interval:g} s for {a.slow_seconds:g} s",
            f"{len(closed_after)} closed by the server "
            f"(median after {seconds(p50)}, last {seconds(max(closed_after, default=None))}), "
            f"{refused[0]} not connected, {a.slow - len(closed_after) - refused[0]} "
            f"still open at the end",
        )
        health_rows(self.report, scenario, self.health, since)


def describe(closed: Closed | None, after: float | None = None) -> str:
    if closed is None:
        return "left open"
    code = "no close frame (dropped)" if closed.code is None or closed.code == 1006 else str(closed.code)
    reason = f" {closed.reason!r}" if closed.reason else ""
    return f"closed {code}{reason} after {closed.after_s:.2f} s" + ("" if closed.by_server else " (by us)")


# ------------------------------------------------------------------ main
async def drive(url: str, pid: int | None, args: argparse.Namespace) -> Report:
    report = Report()
    health = Health(url)
    health.start()
    bound = binds(url) and not args.no_bind
    bench = Bench(
        url,
        pid,
        args.client_header,
        args,
        health,
        report,
        Actor(ATTACKER_IP, ATTACKER_SOURCE if bound else None),
        Actor(VISITOR_IP, VISITOR_SOURCE if bound else None),
    )
    only = set(args.only.split(",")) if args.only else None
    wanted = lambda name: only is None or name in only  # noqa: E731
    print(
        f"target {url} (server pid {pid}); attacker {ATTACKER_IP}"
        f"{' from ' + ATTACKER_SOURCE if bound else ''}, visitors {VISITOR_IP}"
        f"{' from ' + VISITOR_SOURCE if bound else ''} (raw) and {BROWSER_IP} (Chromium)",
        flush=True,
    )
    try:
        browser_cm = (
            Browser(url, args.client_header, args.run_timeout)
            if not args.no_browser and (wanted("baseline") or wanted("flood"))
            else contextlib.nullcontext(None)
        )
        async with browser_cm as browser:
            if browser is not None:
                await browser.run()  # warm-up, untimed: workers and assets
            if wanted("baseline") or wanted("flood"):
                await bench.baseline(browser)
            if wanted("flood"):
                await bench.flood(browser)
        for name, scenario in (
            ("big", bench.big_message),
            ("big", bench.compressed),
            ("idle", bench.idle),
            ("malformed", bench.malformed),
            ("origins", bench.origins),
            ("slowloris", bench.slowloris),
        ):
            if wanted(name):
                await scenario()
                await bench.settle(20)
    finally:
        health.stop.set()
    return report


@contextlib.contextmanager
def target(args: argparse.Namespace) -> Iterator[tuple[str, int | None]]:
    if args.url:
        yield args.url.rstrip("/"), args.pid
        return
    with own_server() as (url, pid):
        if not args.through_proxy:
            yield url, pid
            return
        try:
            from proxy_support import local_proxy  # written alongside; optional
        except ImportError as error:
            raise SystemExit(f"--through-proxy needs tests/support/proxy_support.py: {error}") from None
        with local_proxy(urllib.parse.urlsplit(url).port) as proxied:  # type: ignore[arg-type]
            yield proxied, pid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="", help="a running app on a loopback address (http or https)")
    parser.add_argument("--pid", type=int, default=None, help="its server pid, for RSS")
    parser.add_argument(
        "--through-proxy",
        action="store_true",
        help="own server behind the deployment's nginx (tests/support/proxy_support.py)",
    )
    parser.add_argument(
        "--client-header",
        default=CLIENT_HEADER,
        help="the header that carries the client address (own_server trusts it)",
    )
    parser.add_argument(
        "--no-bind", action="store_true", help="do not bind distinct loopback source addresses per client"
    )
    parser.add_argument("--seconds", type=float, default=45.0, help="the flood's duration")
    parser.add_argument("--connections", type=int, default=32, help="the flood's sessions")
    parser.add_argument(
        "--attack-wait",
        type=float,
        default=5.0,
        help="seconds an attacker session waits for a page run before the next",
    )
    parser.add_argument("--runs", type=int, default=20, help="the visitor's page runs alone")
    parser.add_argument("--browser-runs", type=int, default=5, help="Chromium Runs alone")
    parser.add_argument(
        "--visitor-interval", type=float, default=1.0, help="seconds between the raw visitor's page runs"
    )
    parser.add_argument(
        "--browser-interval",
        type=float,
        default=4.0,
        help="seconds between the starts of Chromium's Runs (the app allows 20 a minute)",
    )
    parser.add_argument("--big-mb", type=int, default=100)
    parser.add_argument("--idle", type=int, default=300)
    parser.add_argument("--idle-seconds", type=float, default=15.0)
    parser.add_argument(
        "--session-limit",
        type=int,
        default=int(os.environ.get("PLAYGROUND_SESSIONS_PER_CLIENT", "8")),
        help="sessions one client may hold open (the server's setting)",
    )
    parser.add_argument("--origins", type=int, default=20)
    parser.add_argument("--slow", type=int, default=50)
    parser.add_argument("--slow-interval", type=float, default=3.0)
    parser.add_argument("--slow-seconds", type=float, default=30.0)
    parser.add_argument(
        "--run-timeout",
        type=float,
        default=60.0,
        help="seconds one Chromium Run may take before it counts as failed",
    )
    parser.add_argument("--client-nice", type=int, default=10)
    parser.add_argument("--no-browser", action="store_true", help="raw clients only")
    parser.add_argument(
        "--only", default="", help="comma-separated: baseline,flood,big,idle,malformed,origins,slowloris"
    )
    args = parser.parse_args(argv)
    if args.url and urllib.parse.urlsplit(args.url).hostname not in LOOPBACK:
        parser.error("--url must be a loopback address (127.0.0.1, localhost, ::1)")
    if args.url and args.through_proxy:
        parser.error("--through-proxy starts its own server; give one of the two")
    if not 1 <= args.connections <= 64 or not 1 <= args.seconds <= 600 or not 1 <= args.idle <= 1000:
        parser.error("--connections 1..64, --seconds 1..600, --idle 1..1000")
    if not args.no_browser and not os.path.exists(CHROMIUM):
        parser.error(f"{CHROMIUM} is missing (apt-get install chromium), or pass --no-browser")
    started = time.monotonic()
    with target(args) as (url, pid):
        os.nice(max(0, args.client_nice))  # the server already runs, at our old priority
        report = asyncio.run(drive(url, pid, args))
    print(
        f"\nfront door bench: {url if args.url else ('own server' + (' behind nginx' if args.through_proxy else ''))}, "
        f"{time.monotonic() - started:.0f} s\n"
    )
    print(report.table())
    failed = report.failed()
    print(f"\n{len(failed)} target(s) missed" if failed else "\nall targets met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
