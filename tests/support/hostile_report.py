"""A Report whose every string is hostile markup, as a worker running hostile code can forge it,
for tests/unit/reports/test_report_text.py and tests/e2e/test_browser_hostile.py (as the page's executor:
PLAYGROUND_UI_EXECUTOR=hostile_report:executor, HOSTILE_LEAK_PORT naming the port that records
what a browser fetched).

Each string names its field, so a failure says which field leaked: images point at
http://127.0.0.1:PORT/leak/<field>.png, the second origin the browser test listens on.
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from typing import Any

from playground.contract.job import (
    MAX_CITED_CHARS,
    CodeLine,
    Job,
    ModeTiming,
    Report,
    SourceLine,
    SweepPoint,
    TraceRun,
)

LEAK_PORT_ENV = "HOSTILE_LEAK_PORT"
ESC = "\x1b"
# What the worker must never achieve with a string: an element a browser fetches (an image, by
# markdown and by HTML), a link that runs script, a heading or list of its own, a script, a
# terminal that retitles itself or clears its screen, and a line of code of its own in a notebook.
TEMPLATE = (
    '![x]({url}) <img src="{url}?html"> [link](javascript:alert(1)) {url}?auto '
    "**bold** :red[red] $x^2$ ``` `` ` {field}\n# heading {field}\n\n- item\n"
    "<script>window.__pwned = 1</script> "
    + ESC
    + "]0;title"
    + "\x07"
    + ESC
    + "[2J"
    + '\x9b2J "1\nimport os" &amp; <!--'
)


def leak_url(port: int, field: str) -> str:
    return f"http://127.0.0.1:{port}/leak/{field}.png"


def hostile(field: str, port: int) -> str:
    return TEMPLATE.format(url=leak_url(port, field), field=field)


def forge(cls: Any, port: int, path: str) -> Any:
    """An instance of `cls` (a Report or any part of it) with every string field hostile, every
    number a plausible one, one item in every list and every dict."""
    origin = typing.get_origin(cls)
    if dataclasses.is_dataclass(cls):
        hints = typing.get_type_hints(cls)
        return cls(
            **{
                f.name: forge(hints[f.name], port, f"{path}.{f.name}".lstrip("."))
                for f in dataclasses.fields(cls)
            }
        )
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(cls) if a is not type(None)]
        return forge(inner[0], port, path)
    if origin is typing.Literal:
        return typing.get_args(cls)[0]
    if origin is list:
        (item,) = typing.get_args(cls)
        return [forge(item, port, f"{path}[0]")]
    if origin is dict:
        _key, value = typing.get_args(cls)
        return {hostile(f"{path}.key", port): forge(value, port, f"{path}.value")}
    if cls is str:
        return hostile(path, port)
    if cls is bool:
        return True
    if cls is int:
        return 2
    if cls is float:
        return 0.001
    return hostile(path, port)  # Any


def report(port: int) -> Report:
    """Every string hostile; the few fields whose keys or numbers the views use are the shapes
    the engine sends, with hostile text where text goes."""
    base = forge(Report, port, "")
    function = base.functions[0]
    calls = [
        dataclasses.replace(function.calls[0], index=i, tracing_count=i + 1, retraced=i == 0, handled=False)
        for i in range(2)
    ]
    mode = ModeTiming(
        median_s=1e-4, samples_s=[1e-4, 1.2e-4, 0.9e-4], iqr_s=1e-5, first_call_s=0.01, noisy=True
    )
    timing = dataclasses.replace(
        function.timing,
        eager=mode,
        graph=mode,
        xla=mode,
        first_call_s={"eager": 0.01},
        speedup_graph=1.5,
        speedup_xla=2.0,
        speedup_range={"graph": [1.2, 1.8], "xla": [1.5, 2.5]},
        break_even_calls={"graph": 3, "xla": None},
        phases={"graph": {"trace_s": 0.01, "compile_s": 0.0, "run_s": 0.001}},
        sweep=[SweepPoint(16, 1e-4, 2e-4, 3e-4, 1, 1), SweepPoint(256, 2e-4, 3e-4, 4e-4, 2, 2)],
        environment={**function.timing.environment, "device": hostile("timing.environment.device", port)},
    )
    graph = dataclasses.replace(
        function.graph,
        op_count=5,
        op_count_optimized=4,
        op_types={**function.graph.op_types, "AddV2": 2},
        op_types_optimized={**function.graph.op_types_optimized, "AddV2": 1},
        ops_by_line={"3": 2, **function.graph.ops_by_line},
        ops=[dataclasses.replace(function.graph.ops[0], line=3)],
        dot='digraph G {\n  "a" [href="'
        + leak_url(port, "graph.dot")
        + '", image="'
        + leak_url(port, "graph.dot.image")
        + '"];\n}',
    )
    function = dataclasses.replace(
        function,
        calls=calls,
        tracing_count=2,
        timing=timing,
        graph=graph,
        line=3,
        converted_code_lines=[CodeLine(line=1, source_line=3)],
    )
    made = dataclasses.replace(
        function, maker=hostile("library_functions[0].maker", port), made_at=3, calls_not_listed=4
    )
    return dataclasses.replace(
        base,
        status="error",
        functions=[function],
        library_functions=[made],
        warnings=[dataclasses.replace(base.warnings[0], line=3)],
        error=dataclasses.replace(base.error, line=3, column=1),
    )


def one_line(field: str, port: int) -> str:
    """hostile(), as one line within trace mode's bound for a cited line: the markup stays."""
    return " ".join(hostile(field, port).split())[:MAX_CITED_CHARS]


def saved(port: int) -> Report:
    """The hostile report as a saved trace-mode file a visitor opens in the page: its program
    and cited lines within the bounds the file opener holds them to, every string hostile; the
    run's error is at a cited line, so the page lights it with the forged error's type."""
    program = one_line("trace.program", port)
    lines = [
        SourceLine(program, 3, one_line("trace.lines[0].text", port)),
        SourceLine(one_line("trace.lines[1].file", port), 2, one_line("trace.lines[1].text", port)),
    ]
    return dataclasses.replace(report(port), trace=TraceRun(program, lines))


def events(port: int) -> list[dict]:
    """The live events a worker (or the host's version pool) sends, their strings hostile."""
    return [
        {"event": "queued", "position": 1, "eta_s": 2},
        {"event": "starting_version", "tf_version": hostile("event.tf_version", port)},
        {"event": "started"},
        {
            "event": "call_finished",
            "function": hostile("event.function", port),
            "index": 0,
            "retraced": True,
            "reason": hostile("event.reason", port),
            "tracing_count": 1,
        },
        {"event": "timing", "mode": hostile("event.mode", port), "progress": 0.5},
    ]


MARKER = "# a hostile report, please"


class HostileExecutor:
    """The page's executor seam: a job whose code holds MARKER gets the hostile report, after
    the hostile events; any other, its recorded report (tests/support/ui_support.py's replay)."""

    def __init__(self, port: int) -> None:
        from ui_support import ReplayExecutor

        self.port = port
        self.replay = ReplayExecutor()

    def submit(self, job: Job, on_event: Any | None = None, control: Any | None = None) -> Report:
        if MARKER not in job.source:
            return self.replay.submit(job, on_event)
        for event in events(self.port):
            (on_event or (lambda e: None))(event)
        return report(self.port)

    def close(self) -> None:
        pass


def executor() -> HostileExecutor:
    return HostileExecutor(int(os.environ[LEAK_PORT_ENV]))
