"""The page's report opener (playground/ui/editor.py, saved_result): a file is held to a worker's
report's checks, then cut to what the page draws, each cut kept to be said."""

from __future__ import annotations

import hostile_files
import pytest
import repo_paths

from playground.reports import drawn
from playground.ui import editor


def test_a_saved_report_at_the_upload_cap_opens_cut_to_what_the_page_draws() -> None:
    data = hostile_files.timing_sample(hostile_files.upload_cap())
    result = editor.saved_result("big.json", data, 1)
    timing = result.report.functions[0].timing
    assert timing is not None and timing.xla is not None
    for mode in (timing.eager, timing.graph, timing.xla):
        assert len(mode.samples_s) == drawn.limit("samples_s")
    assert [(c.path, c.total) for c in result.cuts] == [
        (f"functions[0].timing.{mode}.samples_s", hostile_files.LIST_ITEMS)
        for mode in ("eager", "graph", "xla")
    ]


def test_a_normal_saved_report_opens_whole() -> None:
    path = repo_paths.DATA / "retracing.json"
    result = editor.saved_result(path.name, path.read_bytes(), 1)
    assert result.cuts == () and result.saved == "retracing.json"


def test_a_number_no_float_holds_is_a_refusal_not_a_crash() -> None:
    """float() of a 400-digit integer raises OverflowError, which the opener does not catch."""
    data = (repo_paths.DATA / "retracing.json").read_bytes()
    data = data.replace(b'"duration_s": ', b'"duration_s": 1' + b"0" * 400 + b', "x": ', 1)
    with pytest.raises(ValueError, match="duration_s"):
        editor.saved_result("huge_number.json", data, 1)
