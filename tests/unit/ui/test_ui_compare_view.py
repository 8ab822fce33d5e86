"""The compare view's figures and tables from real recorded reports (tests/data)."""

from __future__ import annotations

import repo_paths

from playground.contract.job import Job, Report
from playground.reports import compare
from playground.ui.results import compare as view

DATA = repo_paths.DATA


def recorded(name: str) -> Report:
    return Report.from_json((DATA / f"{name}.json").read_text())


def comparison(a: str, b: str, spec: str = "jit_compile") -> compare.Comparison:
    parsed = compare.parse(spec)
    job = Job(source="")
    return compare.compare(parsed, job, compare.side_b(job, parsed), recorded(a), recorded(b))


def test_timing_of_both_sides_on_one_chart():
    c = comparison("retracing_timing", "retracing_timing")
    (function,) = c.a.functions
    figure = view.timing_figure(c, function, c.b.functions[0])
    assert [t.name for t in figure.data] == ["a: jit_compile=off", "b: jit_compile=on"]
    samples = sum(len(m.samples_s) for m in view.modes(function.timing).values())
    assert all(len(t.y) == samples and set(t.x) == {"eager", "graph", "xla"} for t in figure.data)


def test_calls_table_pairs_each_cell_and_highlights_only_what_differs():
    c = comparison("many_shapes", "many_shapes_reduce", "reduce_retracing")
    frame = view.calls_frame(c.a.functions[0], c.b.functions[0])
    assert list(frame.columns) == [
        "call",
        "arguments",
        "a traced",
        "b traced",
        "a reason",
        "b reason",
        "a result",
        "b result",
    ]
    styles = [view.highlight(row) for _, row in frame.iterrows()]
    marked = [[column for column, style in zip(frame.columns, row) if style] for row in styles]
    # Call 1 traced alike; call 2 traced on both, for different reasons; 3 and 4 only on side a.
    assert marked[0] == []
    assert marked[1] == ["a reason", "b reason"]
    assert marked[2] == marked[3] == ["a traced", "b traced", "a reason", "b reason"]
