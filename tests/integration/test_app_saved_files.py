"""AppTest: a saved report no run makes, as large as the file opener takes, opens with what the
page leaves out said above the results, and every tab draws what the page's bounds allow."""

from __future__ import annotations

import json

import hostile_files
from app_support import app  # noqa: F401 - fixture
from streamlit.testing.v1 import AppTest

from playground.reports import drawn
from playground.reports.safe_text import unescape_markdown as shown
from playground.ui import editor, keys
from playground.ui.results import TABS


def test_a_huge_timing_sample_is_drawn_cut_and_the_cut_is_said(app: AppTest) -> None:
    app.run()
    data = hostile_files.timing_sample(hostile_files.upload_cap())
    app.session_state[keys.RESULT] = editor.saved_result("sample.json", data, 1)
    app.session_state[keys.RESULT_TAB] = "Timing"
    app.run()
    assert not app.exception
    said = " ".join(shown(w.value) for w in app.warning)
    for mode in ("eager", "graph", "xla"):
        assert f"`functions[0].timing.{mode}.samples_s`: its first 10,000 of 100,000 items are shown" in said
    chart = next(c for c in app.get("plotly_chart") if c.proto.id and keys.TIMING_BOX in c.proto.id)
    points = sum(
        len(trace.get("y") or trace.get("x") or []) for trace in json.loads(chart.proto.spec)["data"]
    )
    assert 0 < points <= 3 * drawn.limit("samples_s")
    for label in TABS:  # every tab of it draws, none fails
        app.session_state[keys.RESULT_TAB] = label
        app.run()
        assert not app.exception, label


def test_a_live_run_s_huge_report_is_drawn_cut_as_a_file_is(app: AppTest, monkeypatch) -> None:
    """A worker's report has the same bounds as a file (100,000 items a list): a forged one
    cost the page as much as the file did, drawn whole."""
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:huge_report")
    app.run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    said = " ".join(shown(w.value) for w in app.warning)
    assert "`functions[0].timing.eager.samples_s`: its first 10,000 of 100,000 items are shown" in said
    kept = app.session_state[keys.RESULT].report.functions[0].timing.eager.samples_s
    assert len(kept) == drawn.limit("samples_s")
