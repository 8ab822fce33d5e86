"""Trace mode's cited lines in a saved report: a file a visitor opens is untrusted, so the lines
are held to the bounds trace mode writes them in (contract/protocol.py), and what the engine
writes stays inside them (engine/watch.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest
import repo_paths

from playground.contract import protocol
from playground.contract.job import MAX_CITED_CHARS, MAX_CITED_LINES, Report

SAVED = (repo_paths.DATA / "trace_program.json").read_text()


def with_trace(**changes) -> bytes:
    data = json.loads(SAVED)
    data["trace"].update(changes)
    return json.dumps(data).encode()


def test_a_trace_reports_program_and_cited_lines_are_taken() -> None:
    report = protocol.decode_report(SAVED.encode())
    assert report.trace is not None and report.trace.program == "train.py"
    assert ("train.py", 12, "        step(tf.ones([2]), lr)") in [
        (c.file, c.line, c.text) for c in report.trace.lines
    ]


LINE = {"file": "train.py", "line": 3, "text": "x = 1"}


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"lines": [LINE] * (MAX_CITED_LINES + 1)}, f"trace.lines: more than {MAX_CITED_LINES} items"),
        ({"lines": [{**LINE, "text": "x" * (MAX_CITED_CHARS + 1)}]}, "trace.lines[0].text: longer than"),
        ({"lines": [{**LINE, "text": "x = 1\nimport os"}]}, "trace.lines[0].text: more than one line"),
        ({"lines": [{**LINE, "text": "x = 1\u2028import os"}]}, "trace.lines[0].text: more than one line"),
        ({"lines": [{**LINE, "file": "a\rb.py"}]}, "trace.lines[0].file: more than one line"),
        ({"lines": [{**LINE, "file": " "}]}, "trace.lines[0].file: empty"),
        ({"lines": [{**LINE, "line": 0}]}, "trace.lines[0].line: not a line number"),
        ({"lines": [{**LINE, "line": "3"}]}, "trace.lines[0].line: not an integer"),
        ({"program": "p" * (MAX_CITED_CHARS + 1)}, "trace.program: longer than"),
    ],
)
def test_cited_lines_outside_the_bounds_are_refused(changes: dict, problem: str) -> None:
    with pytest.raises(protocol.MalformedMessage, match=problem.replace("[", r"\[").replace("]", r"\]")):
        protocol.decode_report(with_trace(**changes))


def test_the_engine_cites_each_site_once_most_telling_first_and_no_more_than_the_bound() -> None:
    pytest.importorskip("tensorflow")
    from playground.engine import watch

    report = Report.from_json(SAVED)
    sites = watch.cited_sites(report, "train.py")
    assert sites[:3] == [("train.py", 4), ("train.py", 13), ("train.py", 12)]  # made, made, called
    assert len(sites) == len(set(sites))
    read = [(f, n) for f, n in sites]
    lines = watch.cited_lines(
        report, "train.py", lambda f, n: f"{f}:{n}" if (f, n) != ("train.py", 13) else None
    )
    assert [(c.file, c.line, c.text) for c in lines] == [(f, n, f"{f}:{n}") for f, n in read if n != 13]
    many = [f"train.py:{n}" for n in range(1, MAX_CITED_LINES + 50)]
    step = report.functions[0]
    stacked = dataclasses.replace(step, calls=[dataclasses.replace(step.calls[0], stack=many)])
    crowded = dataclasses.replace(report, functions=[stacked])
    assert len(watch.cited_lines(crowded, "train.py", lambda f, n: "x")) == MAX_CITED_LINES
