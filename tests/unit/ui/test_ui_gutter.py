"""The editor's gutter: errors and pitfalls marked at their lines, only for the code that ran."""

from __future__ import annotations

import json

import repo_paths

BROKEN = json.loads((repo_paths.DATA / "broken.job.json").read_text())


def test_gutter_marks_errors_and_pitfalls_of_the_code_that_ran() -> None:
    from playground.contract.job import Report
    from playground.ui import gutter

    report = Report.from_json((repo_paths.DATA / "broken.json").read_text())
    marks = gutter.annotations(BROKEN["source"], report, BROKEN["source"])
    assert {(m["row"], m["type"]) for m in marks} == {(4, "error"), (4, "warning")}
    assert any("AttributeError" in m["text"] for m in marks)
    assert gutter.annotations(BROKEN["source"] + "\n# edited", report, BROKEN["source"]) == []
    missing_colon = "import tensorflow as tf\n\ndef f(x)\n    return x\n"
    [mark] = gutter.annotations(missing_colon, None, None)
    assert mark["row"] == 2 and mark["type"] == "error" and "SyntaxError" in mark["text"]
