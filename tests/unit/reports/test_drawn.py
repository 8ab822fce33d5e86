"""A report cut to what the page draws (playground/reports/drawn.py): a real run's report is
left as it is, a file no run makes is cut field by field, and each cut is said."""

from __future__ import annotations

import dataclasses

import pytest
import repo_paths

from playground.contract.job import Report
from playground.reports import drawn
from playground.reports.safe_text import unescape_markdown

RECORDED = sorted(
    p for p in repo_paths.DATA.glob("*.json") if not p.name.endswith(".job.json") and p.name != "to_code.json"
)
TIMED = Report.from_json((repo_paths.DATA / "retracing_timing.json").read_text())


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_a_real_runs_report_is_drawn_whole(path) -> None:
    report = Report.from_json(path.read_text())
    assert drawn.fit(report) == (report, [])
    assert drawn.fit(report)[0] is report  # not even copied


def huge() -> Report:
    function = TIMED.functions[0]
    timing = function.timing
    assert timing is not None
    samples = [i * 1e-6 for i in range(100_000)]
    return dataclasses.replace(
        TIMED,
        stdout="x" * (drawn.DRAWN_CHARS + 5),
        functions=[
            dataclasses.replace(
                function,
                calls=[dataclasses.replace(function.calls[0], index=i) for i in range(5_000)],
                converted_code="y = 1\n" * 100_000,
                timing=dataclasses.replace(
                    timing, eager=dataclasses.replace(timing.eager, samples_s=samples)
                ),
                graph=dataclasses.replace(function.graph, op_types={f"Op{i}": i for i in range(3_000)}),
            )
        ]
        * 3,
    )


def test_a_file_no_run_makes_is_cut_field_by_field_and_each_cut_is_named() -> None:
    report, cuts = drawn.fit(huge())
    function = report.functions[0]
    assert len(report.stdout) == drawn.DRAWN_CHARS
    assert len(function.calls) == drawn.DRAWN_ITEMS
    assert function.calls[-1].index == drawn.DRAWN_ITEMS - 1  # the first ones, in order
    assert len(function.converted_code or "") == drawn.CODE_CHARS
    assert len(function.timing.eager.samples_s) == 10 * drawn.DRAWN_ITEMS
    assert list(function.graph.op_types) == [f"Op{i}" for i in range(drawn.DRAWN_ITEMS)]
    assert function.timing.graph == TIMED.functions[0].timing.graph  # within bounds: as it was
    assert drawn.Cut("functions[2].calls", drawn.DRAWN_ITEMS, 5_000) in cuts
    assert drawn.Cut("stdout", drawn.DRAWN_CHARS, drawn.DRAWN_CHARS + 5, text=True) in cuts
    assert {c.path for c in cuts} == {"stdout"} | {
        f"functions[{i}].{field}"
        for i in range(3)
        for field in ("calls", "converted_code", "timing.eager.samples_s", "graph.op_types")
    }


def test_the_notes_say_what_was_cut_a_few_at_a_time() -> None:
    _report, cuts = drawn.fit(huge())
    said = [unescape_markdown(note) for note in drawn.notes(cuts)]
    assert (
        said[0] == "`stdout`: its first 1,048,576 of 1,048,581 characters are shown; the rest is not drawn."
    )
    assert "`functions[0].calls`: its first 1,000 of 5,000 items are shown; the rest is not drawn." in said
    assert len(said) == drawn.NOTES_SHOWN + 1
    assert said[-1] == f"{len(cuts) - drawn.NOTES_SHOWN} more field(s) of this file are cut the same way."
    assert drawn.notes([]) == []
