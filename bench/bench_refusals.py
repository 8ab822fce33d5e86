"""What a refused API request costs the server, in CPU-s per refusal, beside the floor (a request
refused for nothing it carries: an unknown route, an empty body) and an accepted Run.

A real `streamlit run app.py` with its real sandbox, in a cgroup of its own (server_cgroup.py:
the server and every process it starts, on the scheduler's clock, in microseconds). One request
at a time, each from an address of its own (the server trusts X-Forwarded-For, so the per-client
rate refuses only the kind that is about it); the cgroup's CPU read before and after each. The
issue's figures (issue 55): a 64 KB literal plan and a 3.9 MB body of 1.3 M calls cost 0.13 to
0.21 CPU-s to refuse, more than a whole Run.

    /opt/tf-playground/venv/bin/python bench/bench_refusals.py [--requests 200] [--runs 10] [--only "54 KB"]

Target (issue 55): a refused request <= 0.01 CPU-s at the 99th percentile. Where no cgroup can be
made (no root, or a read-only cgroup tree) it says so and stops: a process's own clock ticks are
10 ms, as coarse as the target.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import itertools
import json
import os
import pathlib
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT), str(ROOT / "bench")]

from bench_ui import cpu_model  # noqa: E402
from browser_support import wait_until_ready  # noqa: E402
from load_test import CLIENT_HEADER, own_server, percentile  # noqa: E402
from server_cgroup import ServerCgroup  # noqa: E402

from playground import gallery  # noqa: E402
from playground.contract import job_request  # noqa: E402

TARGET_S = 0.010
NUMBERS = itertools.count()  # of the requests sent: a varied one's comment
ANALYZE = "/api/v1/analyze"
F_OF_ANY = "def f(*args, **kwargs):\n    return 1\n"
RATE_BURST = 60  # the server's PLAYGROUND_REQUEST_BURST (the default)
AFTER_RUN_S = 1.5  # a Run's worker torn down and the next one warm again: counted in its cost


def _json(value: object) -> bytes:
    return json.dumps(value).encode()


@dataclass(frozen=True)
class Kind:
    """One kind of request: its name, what it sends, and the status it is answered with."""

    name: str
    status: int
    method: str = "POST"
    path: str = ANALYZE
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/json"),)
    one_client: bool = False  # every request from the same address (the rate's kind)
    vary: bool = False  # new code each time (a comment line): the server reads each afresh
    source: str = ""  # the client's own address, where the peer matters (/metrics)

    def sent(self, number: int) -> bytes:
        if not self.vary:
            return self.body
        return self.body.replace(b'"source": "', b'"source": "# %d\\n' % number, 1)


LITERAL = "[" + ",".join(["1"] * 32_000) + "]"
UNFIT = "def f(x):\n    return x\n" + "x = 1\n" * 9_000  # 54 KB; f takes one argument
NESTED_LATE = "x = 1\n" * 9_000 + "y = " + "-" * 160 + "1\n"  # 54 KB, 160 deep at its end
KINDS = (
    Kind("floor: unknown route (404)", 404, "GET", "/api/v1/no-such-route", headers=()),
    Kind("floor: empty body (400)", 400),
    Kind("3.9 MB body of 1.3 M calls (413)", 413, body=b'{"source": "x", "calls": [' + b'"",' * 1_300_000 + b'""]}'),
    Kind("1.1 MB body of 370 K calls (400)", 400, body=b'{"source": "x", "calls": [' + b'"",' * 370_000 + b'""]}'),
    Kind("64 KB literal plan (400)", 400, body=_json({"source": F_OF_ANY, "function": "f", "calls": [LITERAL]})),
    Kind("32,000 arguments, last bad (400)", 400, body=_json({"source": F_OF_ANY, "function": "f", "calls": [LITERAL[1:-1] + ",@"]})),
    Kind("512 arguments, last bad (400)", 400, body=_json({"source": F_OF_ANY, "function": "f", "calls": [",".join(["1"] * 511) + ",@"]})),
    Kind("malformed JSON, 1 MB (400)", 400, body=b'{"source": "' + b"x" * 1_000_000),
    Kind("malformed JSON, small (400)", 400, body=b'{"source": '),
    Kind("JSON 100,000 deep (400)", 400, body=b"[" * 100_000 + b"]" * 100_000),
    Kind("source 5,000 deep (400)", 400, body=_json({"source": "x = " + "-" * 5000 + "1\n", "function": "f"})),
    Kind("source 54 KB, deep at its end (400)", 400, body=_json({"source": NESTED_LATE, "function": "f"})),
    Kind("  the same, new code each time (400)", 400, body=_json({"source": NESTED_LATE, "function": "f"}), vary=True),
    Kind("plan unfit for 54 KB of code (400)", 400, body=_json({"source": UNFIT, "function": "f", "calls": ["1, 2"]})),
    Kind("  the same, new code each time (400)", 400, body=_json({"source": UNFIT, "function": "f", "calls": ["1, 2"]}), vary=True),
    Kind("foreign Origin, CSRF (403)", 403, body=b'{"source": "x = 1"}', headers=(("Content-Type", "application/json"), ("Origin", "https://evil.example"))),
    Kind("over the request rate (429)", 429, body=b"", one_client=True),
    Kind("/metrics, a refused peer (403)", 403, "GET", "/metrics", headers=(), source="127.0.0.2"),
)  # fmt: skip
RUN = gallery.BY_SLUG["retracing"].request()


def addresses() -> Callable[[], str]:
    """A new client address for each request (198.18.0.0/15: the benchmarking range)."""
    counter = itertools.count(1)

    def next_address() -> str:
        n = next(counter)
        return f"198.18.{(n >> 8) & 255}.{n & 255}"

    return next_address


def send(url: str, kind: Kind, client: str, number: int = 0) -> tuple[int, bytes]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=120, source_address=(kind.source, 0) if kind.source else None
    )
    try:
        headers = {CLIENT_HEADER: client, **dict(kind.headers)}
        connection.request(
            kind.method, kind.path, kind.sent(number) if kind.method == "POST" else None, headers
        )
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def measure(url: str, cgroup: ServerCgroup, kind: Kind, count: int, client: Callable[[], str]) -> list[float]:
    """CPU-s of the server per request of this kind (only those answered with its status)."""
    costs: list[float] = []
    same = client()
    if kind.one_client:  # spend the burst first: what follows is refused for the rate
        for _ in range(RATE_BURST):
            send(url, kind, same)
    while len(costs) < count:
        before = cgroup.cpu_s()
        status, body = send(url, kind, same if kind.one_client else client(), next(NUMBERS))
        cost = cgroup.cpu_s() - before
        if kind.one_client and status == 400:
            continue  # a token came back (5 a second): that one was not refused for the rate
        if status != kind.status:
            raise SystemExit(f"{kind.name}: answered {status}, not {kind.status}: {body[:300]!r}")
        costs.append(cost)
    return costs


def idle(cgroup: ServerCgroup, seconds: float) -> float:
    """The server's CPU-s a second while nobody asks (its own timers, the sandbox's pool)."""
    before = cgroup.cpu_s()
    time.sleep(seconds)
    return (cgroup.cpu_s() - before) / seconds


def runs(
    url: str, cgroup: ServerCgroup, count: int, client: Callable[[], str], background: float
) -> list[float]:
    """CPU-s of the server per accepted Run: the request, and the second after it in which the
    sandbox tears the worker down and starts the next warm one, less the idle server's share."""
    kind = Kind("Run", 200, body=_json(dict(job_request.as_mapping(RUN))))
    costs = []
    for _ in range(count):
        before, started = cgroup.cpu_s(), time.monotonic()
        status, body = send(url, kind, client())
        time.sleep(AFTER_RUN_S)
        costs.append(cgroup.cpu_s() - before - background * (time.monotonic() - started))
        if status != 200 or json.loads(body).get("status") != "ok":
            raise SystemExit(f"a Run failed: {status} {body[:300]!r}")
    return costs


def chosen(only: str) -> list[Kind]:
    """The kinds named (all where none is): the floor always, and a variant ("  the same, ...")
    with the kind it varies."""
    parts = [p.strip() for p in only.split(",") if p.strip()]
    kinds: list[Kind] = []
    for kind in KINDS:
        variant = kind.name.startswith("  ") and bool(kinds) and kinds[-1] is KINDS[KINDS.index(kind) - 1]
        if not parts or kind.name.startswith("floor") or variant or any(p in kind.name for p in parts):
            kinds.append(kind)
    return kinds


def line(name: str, costs: list[float], mark: bool = True) -> str:
    p99 = percentile(costs, 0.99) or 0.0
    verdict = ("ok" if p99 <= TARGET_S else "OVER") if mark else ""
    figures = (statistics.median(costs), p99, max(costs), statistics.fmean(costs))
    return f"  {name:38} {len(costs):5}" + "".join(f" {f * 1000:8.2f}" for f in figures) + f"  {verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="of each refused kind")
    parser.add_argument("--runs", type=int, default=10, help="accepted Runs, for the comparison")
    parser.add_argument(
        "--only",
        default="",
        help='the kinds whose names hold one of these comma-separated parts ("54 KB,new code"), '
        "beside the floor; the kind after a chosen one is measured too where it is its variant",
    )
    args = parser.parse_args()
    kinds = chosen(args.only)
    cgroup = ServerCgroup.make()
    if cgroup is None:
        raise SystemExit("bench_refusals: no cgroup can be made here (it needs root); nothing measured")
    os.environ.update(
        PLAYGROUND_RUNS_PER_MINUTE="100000",
        PLAYGROUND_CLIENT_SECONDS_PER_MINUTE="1e9",
        PLAYGROUND_REQUEST_BURST=str(RATE_BURST),
        # a name that does not resolve here: looked up in the background, never on a scrape's path
        PLAYGROUND_METRICS_ALLOW="127.0.0.1/32,::1/128,prometheus",
    )
    client = addresses()
    results: list[tuple[Kind, list[float]]] = []
    try:
        with own_server(cgroup=cgroup) as (url, _pid):
            wait_until_ready(url)
            for kind in kinds:  # warm: the routes, the catalogs, the parsers
                measure(url, cgroup, kind, 3, client)
            background = idle(cgroup, 5.0)
            for kind in kinds:
                results.append((kind, measure(url, cgroup, kind, args.requests, client)))
            run_costs = runs(url, cgroup, args.runs, client, background)
    finally:
        cgroup.remove()
    print(f"bench_refusals: {datetime.date.today()}, {cpu_model()}, server CPU from its cgroup")
    print(
        f"  {'request (CPU ms of the server)':38} {'n':>5}   median      p99      max     mean  target p99 <= 10"
    )
    for kind, costs in results:
        print(line(kind.name, costs, mark=not kind.name.startswith("floor")))
    print(line("an accepted Run (retracing)", run_costs, mark=False))
    print("  (a Run: the request and the sandbox's work after it, the idle server's share taken off)")
    print(f"  the server idle: {background * 1000:.2f} ms of CPU a second")


if __name__ == "__main__":
    main()
