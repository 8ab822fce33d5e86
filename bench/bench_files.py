"""What opening a hostile file or link costs the page's process (issue 55): saved reports as
large as the upload cap lets them be (a huge timing sample, many traces, huge converted code,
many table rows, many functions) and share links as long as a URL may be, each opened in the
page (AppTest, recorded reports replayed: no sandbox) with every result tab clicked. Per file:
CPU seconds and peak RSS growth of the process, against the targets (1 CPU-s, 100 MB), beside
opening a normal saved report (tests/data/retracing.json) as the floor.

    /opt/tf-playground/venv/bin/python bench/bench_files.py [--only NAME ...]

Each file is opened in a fresh process that first opened the floor's report once (imports,
plotly, the page's first run are paid before the clock starts), so a row is the file's own cost.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]
os.environ.setdefault("PLAYGROUND_UI_EXECUTOR", "ui_support:replay")
os.environ.setdefault("PLAYGROUND_EDITOR", "plain")

from hostile_files import BUILDERS, upload_cap  # noqa: E402

CPU_TARGET_S = 1.0
RSS_TARGET_MB = 100.0
FLOOR = ROOT / "tests" / "data" / "retracing.json"
URL_CHARS = 64 << 10  # what a share link may hold: past it, proxies and browsers cut it


def saved_reports(cap: int, only: list[str] | None) -> dict[str, bytes]:
    """The floor's report, then each hostile one (tests/support/hostile_files.py), by name."""
    names = [n for n in BUILDERS if only is None or any(o in n for o in only)]
    return {"floor (retracing.json)": FLOOR.read_bytes(), **{n: BUILDERS[n](cap) for n in names}}


def share_links() -> dict[str, dict[str, str]]:
    """Hostile share links (query params), each at most URL_CHARS."""
    from playground.contract.share_link import encode_source

    rng = random.Random(55)
    # Code that compresses badly, so the link carries as much of it as a URL holds.
    words = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789 \n") for _ in range(URL_CHARS))
    source = "def f(x):\n    return x\n# " + words
    code = encode_source(source)
    while len(code) > URL_CHARS - 100:
        source = source[: len(source) * 9 // 10]
        code = encode_source(source)
    calls = "\n".join(f"float32[{i % 9 + 1}]" for i in range(URL_CHARS // 12))
    link = "[click](https://evil.example) "
    return {
        "link: long code": {"code": code, "fn": "f"},
        "link: long plan": {"calls": calls},
        "link: markdown everywhere": {
            "fn": link,
            "calls": link,
            "example": link,
            "sig": link * (URL_CHARS // len(link) // 2),
            "sweep": link,
            "cmp": "signature=" + link,
        },
    }


def count_shutdown_once() -> None:
    """AppTest waits for a page run by polling its runner's events every millisecond, each poll
    reading every event so far: on a page of many elements that harness work outgrew the page's
    own. A server has no such loop; the poll here reads only the events it has not read."""
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner, ScriptRunnerEvent

    def script_stopped(self) -> bool:  # type: ignore[no-untyped-def]
        seen = getattr(self, "_bench_seen", 0)
        events = self.events
        self._bench_seen = len(events)
        return any(e == ScriptRunnerEvent.SHUTDOWN for e in events[seen:])

    LocalScriptRunner.script_stopped = script_stopped  # type: ignore[method-assign]


def one(kind: str, path: str) -> dict:
    """In this process: the floor once, then the file (or link) with every tab, measured."""
    from streamlit.testing.v1 import AppTest

    from playground.ui import editor, keys

    count_shutdown_once()
    page = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    page.run()
    open_saved(page, editor, keys, FLOOR.name, FLOOR.read_bytes())  # warm: imports, plotly, the page
    if kind == "link":
        params = json.loads(pathlib.Path(path).read_text())
        page = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        for name, value in params.items():
            page.query_params[name] = value
    data = pathlib.Path(path).read_bytes()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu, wall = time.process_time(), time.perf_counter()
    if kind == "link":
        page.run()
        page.button(key=keys.RUN).click().run()  # the run it asks for: its refusals drawn, or its result
        page.session_state[keys.OPTIONS_PANEL] = True  # every field, with its error beside it
        page.run()
        try:
            note = "run" if page.session_state[keys.RESULT] is not None else "refused"
        except KeyError:  # no result: the run was refused, its reasons drawn by the fields
            note = "refused"
        click_tabs(page, keys)
    else:
        note = open_saved(page, editor, keys, pathlib.Path(path).name, data)
    return {
        "cpu_s": time.process_time() - cpu,
        "wall_s": time.perf_counter() - wall,
        "rss_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024,
        "note": note,
        "exception": [e.value for e in page.exception][:1],
    }


def open_saved(page, editor, keys, name: str, data: bytes) -> str:  # type: ignore[no-untyped-def]
    """As the file opener does (the uploader's callback), then every tab clicked."""
    try:
        result = editor.saved_result(name, data, 1)
    except ValueError as error:
        return "refused: " + str(error)[:100]
    page.session_state[keys.RESULT] = result
    page.run()
    click_tabs(page, keys)
    cut = getattr(result, "cuts", ())  # none before the page cut what it draws: run on older code too
    return "opened" + (
        f", cut: {', '.join(c.path for c in cut[:2])}" + (" ..." if len(cut) > 2 else "") if cut else ""
    )


def click_tabs(page, keys) -> None:  # type: ignore[no-untyped-def]
    labels = [tab.label for tab in page.tabs]
    for label in labels:
        page.session_state[keys.RESULT_TAB] = label
        page.run()
        if "Timing" in label:  # the chart's own switches, both ways
            for toggle in (keys.TIMING_POINTS, keys.TIMING_LOG):
                page.session_state[toggle] = not page.session_state[toggle]
                page.run()


def measure(kind: str, data: bytes) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as file:
        file.write(data)
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--one", kind, file.name],
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        os.unlink(file.name)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        return {
            "cpu_s": float("nan"),
            "rss_mb": float("nan"),
            "wall_s": float("nan"),
            "note": done.stderr[-300:],
        }
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--one", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="*", default=None, help="names (or parts of names) to run")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(*args.one)))
        return 0
    cap = upload_cap()
    cases = [(name, "file", data) for name, data in saved_reports(cap, args.only).items()]
    links = share_links().items()
    cases += [
        (n, "link", json.dumps(p).encode())
        for n, p in links
        if not args.only or any(o in n for o in args.only)
    ]
    print(
        f"upload cap {cap / 1e6:.1f} MB; targets: {CPU_TARGET_S} CPU-s, {RSS_TARGET_MB:.0f} MB peak RSS growth"
    )
    print(
        f"{'file':<26} {'bytes':>9} {'CPU-s':>7} {'-floor':>7} {'wall s':>7} {'RSS MB':>7}  verdict  outcome"
    )
    floor_cpu = None
    for name, kind, data in cases:
        row = measure(kind, data)
        meets = row["cpu_s"] <= CPU_TARGET_S and row["rss_mb"] <= RSS_TARGET_MB
        floor_cpu = row["cpu_s"] if floor_cpu is None else floor_cpu  # the first row is the floor
        print(
            f"{name:<26} {len(data):>9} {row['cpu_s']:>7.2f} {row['cpu_s'] - floor_cpu:>+7.2f} "
            f"{row['wall_s']:>7.2f} {row['rss_mb']:>7.1f}  {'meets' if meets else 'MISSES'}   "
            f"{row['note']}{' EXCEPTION' if row.get('exception') else ''}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
