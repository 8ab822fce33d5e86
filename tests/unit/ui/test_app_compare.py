"""AppTest of compare mode: the toggle and its pickers, the check before Run, the share link, and
the compare view over recorded reports of both sides (tests/data: many_shapes, many_shapes_reduce)."""

from __future__ import annotations

import json

import pytest
from app_support import app  # noqa: F401 - fixture: replayed reports, the plain editor
from streamlit.testing.v1 import AppTest

from playground.reports.safe_text import unescape_markdown as shown
from playground.ui import keys


def compare_tab(at: AppTest, label: str):
    at.session_state[keys.COMPARE_TAB] = label
    at.run()
    return next(t for t in at.tabs if t.label == label)


def table(element, *columns: str):
    """The dataframe among the element's that has these columns (tests never count positions)."""
    return next(d.value for d in element.dataframe if set(columns) <= set(d.value.columns))


def start(at: AppTest, kind: str) -> None:
    at.query_params["example"] = "many-shapes"
    at.run()
    at.toggle(key=keys.COMPARE).set_value(True).run()
    at.selectbox(key=keys.COMPARE_KIND).set_value(kind).run()


def test_toggle_offers_what_side_b_varies(app: AppTest) -> None:
    app.run()
    assert app.toggle(key=keys.COMPARE).value is False
    assert not [s for s in app.selectbox if s.key == keys.COMPARE_KIND]
    app.toggle(key=keys.COMPARE).set_value(True).run()
    options = app.selectbox(key=keys.COMPARE_KIND).options
    # TF versions are offered only where playground.contract.versions lists extra ones.
    assert {
        "reduce_retracing on/off (formerly experimental_relax_shapes)",
        "jit_compile (XLA) on/off",
        "input_signature",
    } <= set(options)
    app.selectbox(key=keys.COMPARE_KIND).set_value("signature").run()
    assert app.text_input(key=keys.COMPARE_SIGNATURE).value == ""


def test_compare_reduce_retracing_shows_both_sides_and_differences(app: AppTest) -> None:
    start(app, "reduce_retracing")
    app.button(key=keys.RUN).click().run()
    assert not app.exception and not app.error
    assert [m.value for m in app.metric if m.label == "Traces"] == ["4", "2"]
    rows = table(app, "kind", "where")  # the differences, both values each
    by_kind = {(k, w): (a, b) for k, w, a, b in rows.itertuples(index=False)}
    assert by_kind[("tracing_count", "total")] == ("4", "2")
    assert by_kind[("retraced", "total · call 3")] == ("True", "False")
    assert app.query_params["cmp"] == "reduce_retracing"
    calls = compare_tab(app, "Calls")
    traced = table(calls, "a traced", "b traced")
    assert list(traced["a traced"]) == ["traced"] * 4
    assert list(traced["b traced"]) == ["traced", "traced", "reused graph", "reused graph"]
    (figure,) = [json.loads(e.proto.spec) for e in calls.get("plotly_chart")]
    assert [trace["y"] for trace in figure["data"]] == [[1, 2, 3, 4], [1, 2, 2, 2]]
    code = compare_tab(app, "Converted code")
    assert any("same code on both sides" in s.value for s in code.success)
    graph = compare_tab(app, "Graph")
    (ops,) = [json.loads(e.proto.spec) for e in graph.get("plotly_chart")]
    assert [t["name"] for t in ops["data"]] == ["a: reduce_retracing=off", "b: reduce_retracing=on"]


def test_malformed_signature_is_refused_next_to_the_field(app: AppTest) -> None:
    start(app, "signature")
    app.text_input(key=keys.COMPARE_SIGNATURE).set_value("float32[None").run()
    app.button(key=keys.RUN).click().run()
    assert any(
        "unclosed bracket" in shown(e.value) and "accepted: tf=VERSION" in shown(e.value) for e in app.error
    )
    assert keys.RESULT not in app.session_state


def test_compare_and_export_are_refused_together(app: AppTest) -> None:
    start(app, "jit_compile")
    app.toggle(key=keys.EXPORT).set_value(True).run()
    app.button(key=keys.RUN).click().run()
    assert any("cannot export" in e.value for e in app.error)


@pytest.mark.parametrize(
    "param, kind, signature",
    [
        ("signature=float32[None]", "signature", "float32[None]"),
        ("jit_compile", "jit_compile", ""),
    ],
)
def test_share_link_restores_compare(app: AppTest, param, kind, signature) -> None:
    app.query_params["example"] = "many-shapes"
    app.query_params["cmp"] = param
    app.run()
    assert app.toggle(key=keys.COMPARE).value is True
    assert app.selectbox(key=keys.COMPARE_KIND).value == kind
    if signature:
        assert app.text_input(key=keys.COMPARE_SIGNATURE).value == signature


def test_tf_picker_lists_the_installed_versions(app: AppTest) -> None:
    versions = pytest.importorskip(
        "playground.contract.versions",
        reason="needs playground.contract.versions "
        "(issue 15 part 1): enabled once the versions branch is merged",
    )
    from playground.contract.config import Settings

    installed = versions.installed(Settings.from_env())
    if len(installed) < 2:
        pytest.skip("only the default TensorFlow is installed")
    start(app, "tf")
    picker = app.selectbox(key=keys.COMPARE_TF)
    assert picker.options[0].startswith(installed[0].version) and len(picker.options) == len(installed)
    picker.set_value(installed[1].version).run()
    assert app.query_params["cmp"] == f"tf={installed[1].version}"
    picker.set_value("").run()  # the default against the default: nothing to compare
    app.button(key=keys.RUN).click().run()
    assert any("both sides would be the same" in e.value for e in app.error)
