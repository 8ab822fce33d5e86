"""Saved reports no run makes, each as large as the page's file opener takes (the upload cap):
a huge timing sample, many traces, huge converted code, many table rows. Every one is a report
the host's decoder accepts (lists of at most REPORT_BOUNDS.list_items, at most JSON_ITEMS
values), so only what the page draws can bound its cost. For bench/bench_files.py and the tests
of playground/reports/drawn.py's users."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

import repo_paths

from playground.contract.protocol import REPORT_BOUNDS

TIMED = repo_paths.DATA / "retracing_timing.json"  # a recorded report with timing, graph and code
LIST_ITEMS = REPORT_BOUNDS.list_items


def upload_cap() -> int:
    """The file uploader's cap in bytes (.streamlit/config.toml's server.maxUploadSize, in MB)."""
    for line in (repo_paths.ROOT / ".streamlit" / "config.toml").read_text().splitlines():
        if line.strip().startswith("maxUploadSize"):
            return int(float(line.split("=")[1]) * 1e6)
    return 200_000_000  # Streamlit's default


def fill(
    base: dict, where: Callable[[dict], list], item: Callable[[int], object], cap: int, most: int = LIST_ITEMS
) -> bytes:
    """`base` with the list `where` picks grown by `item(i)` until the file is just under `cap`,
    or the list holds `most` items."""
    report = copy.deepcopy(base)
    target = where(report)
    size = len(json.dumps(report))
    i = 0
    while len(target) < most:
        value = item(i)
        step = len(json.dumps(value)) + 2
        if size + step > cap:
            break
        target.append(value)
        size += step
        i += 1
    data = json.dumps(report).encode()
    assert len(data) <= cap, (len(data), cap)
    return data


def _timed() -> dict:
    return json.loads(TIMED.read_text())


def timing_sample(cap: int) -> bytes:
    """Every mode's sample as long as a list may be (eager, graph and XLA)."""
    rng = random.Random(55)
    base = _timed()
    timing = base["functions"][0]["timing"]
    timing["xla"] = timing.get("xla") or copy.deepcopy(timing["graph"])
    for mode in ("eager", "graph"):
        timing[mode]["samples_s"] = [round(rng.uniform(1e-5, 9e-5), 7) for _ in range(LIST_ITEMS)]
    return fill(
        base,
        lambda r: r["functions"][0]["timing"]["xla"]["samples_s"],
        lambda i: round(rng.uniform(1e-5, 9e-5), 7),
        cap,
    )


def timing_sweep(cap: int) -> bytes:
    point = {"size": 1, "eager_s": 1e-5, "graph_s": 2e-5, "xla_s": 3e-5, "graph_traces": 1, "xla_traces": 1}
    return fill(
        _timed(),
        lambda r: r["functions"][0]["timing"]["sweep"],
        lambda i: {**point, "size": i + 1, "graph_traces": i},
        cap,
    )


def many_traces(cap: int) -> bytes:
    call = _timed()["functions"][0]["calls"][0]
    return fill(
        _timed(),
        lambda r: r["functions"][0]["calls"],
        lambda i: {**call, "index": i, "tracing_count": i + 1, "stdout": "", "output": "x"},
        cap,
    )


def many_signatures(cap: int) -> bytes:
    return fill(
        _timed(), lambda r: r["functions"][0]["concrete_signatures"], lambda i: f"(x: float32[{i}])", cap
    )


def many_functions(cap: int) -> bytes:
    function = {
        **_timed()["functions"][0],
        "calls": [],
        "timing": None,
        "graph": None,
        "converted_code": None,
    }
    function.update(converted_code_lines=[], concrete_signatures=[])
    return fill(
        _timed(), lambda r: r["functions"], lambda i: {**function, "name": f"f{i}", "tracing_count": i}, cap
    )


def _long_text(cap: int, where: Callable[[dict], dict], field: str, line: Callable[[int], str]) -> bytes:
    report = _timed()
    room = (cap - len(json.dumps(report))) * 9 // 10  # newlines grow as JSON's \n
    text, i = [], 0
    while room > 0:
        text.append(line(i))
        room -= len(text[-1]) + 2
        i += 1
    where(report)[field] = "\n".join(text)
    return json.dumps(report).encode()


def huge_converted_code(cap: int) -> bytes:
    return _long_text(
        cap,
        lambda r: r["functions"][0],
        "converted_code",
        lambda i: f"    y_{i} = ag__.converted_call(f, (x_{i},), None, fscope)",
    )


def many_code_lines(cap: int) -> bytes:
    """The converted code's line map: the smallest object a report holds, the most of them."""
    return fill(
        _timed(),
        lambda r: r["functions"][0]["converted_code_lines"],
        lambda i: {"line": i + 1, "source_line": 1},
        cap,
    )


def many_graph_ops(cap: int) -> bytes:
    op = {"name": "mul", "type": "Mul", "line": 5, "function": ""}
    return fill(
        _timed(), lambda r: r["functions"][0]["graph"]["ops"], lambda i: {**op, "name": f"op_{i}"}, cap
    )


def many_warnings(cap: int) -> bytes:
    warning = _timed()["warnings"][0]
    return fill(_timed(), lambda r: r["warnings"], lambda i: {**warning, "line": i + 1}, cap)


def huge_stdout(cap: int) -> bytes:
    return _long_text(cap, lambda r: r, "stdout", lambda i: f"Tracing! x.shape = ({i},)")


BUILDERS: dict[str, Callable[[int], bytes]] = {
    "timing sample": timing_sample,
    "timing sweep": timing_sweep,
    "many traces": many_traces,
    "many signatures": many_signatures,
    "many functions": many_functions,
    "huge converted code": huge_converted_code,
    "many code lines": many_code_lines,
    "many graph ops": many_graph_ops,
    "many warnings": many_warnings,
    "huge stdout": huge_stdout,
}
