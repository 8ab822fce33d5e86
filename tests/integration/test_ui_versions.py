"""The app's side of several TF versions: the version picker runs the job on the real sandbox pool
of that version, the page says while a version's first worker starts, and the gallery shows the
recorded claims x versions table."""

from __future__ import annotations

import json
import pathlib

import pytest
import repo_paths
from streamlit.testing.v1 import AppTest

from playground.contract import versions
from playground.contract.config import Settings
from playground.reports.claims import ClaimTable
from playground.reports.safe_text import unescape_markdown as shown
from playground.ui import claims_table, keys
from playground.ui.run import _describe

APP = str(repo_paths.APP)


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("PLAYGROUND_EDITOR", "plain")
    monkeypatch.syspath_prepend(str(repo_paths.SUPPORT))
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state[keys.OPTIONS_PANEL] = True  # opened, as a user would to pick a version
    return at


def test_starting_a_version_is_shown_while_the_run_waits():
    label, fraction = _describe({"event": "starting_version", "tf_version": "2.15.1"}, 3)
    assert "2.15.1" in shown(label) and fraction is None  # a worker's text: escaped


def test_version_picker_runs_on_the_chosen_version(app: AppTest, monkeypatch) -> None:
    installed = versions.installed(Settings())
    if len(installed) < 2:
        pytest.skip("no extra TensorFlow version installed: scripts/install.sh --tf 2.15.1")
    extra = installed[1].version
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:real_or_subprocess")
    monkeypatch.setenv("PLAYGROUND_POOL_SIZE", "1")
    app.query_params["example"] = "retracing"
    app.run()
    import ui_support

    ui_support.until_warm()  # Run opens once the fresh pool has imported TensorFlow
    app.run()
    picker = app.selectbox(key=keys.TF_VERSION)
    assert picker.options[0].startswith(installed[0].version) and extra in picker.options
    picker.set_value(extra).run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    result = app.session_state[keys.RESULT]
    assert result.job.tf_version == extra and result.report.tensorflow_version == extra
    assert any(f"TensorFlow {extra}" in shown(c.value) for c in app.caption)


def test_claims_table_in_the_gallery_shows_each_version(app: AppTest, monkeypatch) -> None:
    table = claims_table.recorded()
    assert table is not None, f"no recorded table at {claims_table.RECORDED}"
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:replay")
    app.query_params["example"] = "signature-mismatch"
    app.run()
    assert not app.exception

    def claims_tables() -> list:  # the panel's table (the example's recorded result has others)
        return [d for d in app.dataframe if any(str(c).startswith("TF ") for c in d.value.columns)]

    assert not claims_tables()  # closed, the panel draws nothing
    app.session_state[keys.CLAIMS_PANEL] = True
    app.run()
    frame = claims_tables()[0]
    shown = frame.value
    assert set(shown["example"]) == {"signature-mismatch"}
    assert [c for c in shown.columns if c.startswith("TF ")] == [f"TF {v}" for v in table.versions]
    app.toggle(key=keys.CLAIMS_TABLE).set_value(False).run()
    assert len(claims_tables()[0].value) == len(table.rows)


def test_recorded_table_round_trips_and_names_changes():
    table = ClaimTable.from_json(pathlib.Path(claims_table.RECORDED).read_text())
    assert json.loads(table.to_json()) == json.loads(pathlib.Path(claims_table.RECORDED).read_text())
    for row in claims_table.rows(table):
        changed = len({row[f"TF {v}"] for v in table.versions if row[f"TF {v}"] != "-"}) > 1
        assert bool(row["changed between"]) == changed, row
