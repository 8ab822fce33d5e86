"""AppTest flows over the real app script, with recorded reports replayed by a fake executor."""

from __future__ import annotations

import html
import json
import pathlib
import re
import sys

import pytest
import repo_paths
from app_support import app  # noqa: F401 - fixture
from streamlit.testing.v1 import AppTest

from playground import gallery
from playground.contract import share_link
from playground.reports.figures import COLOURS as MODE_COLOURS
from playground.reports.safe_text import unescape_markdown as shown
from playground.ui import keys, options, state

APP = str(repo_paths.APP)
SQUARE = json.loads((repo_paths.DATA / "square_sum.job.json").read_text())
BROKEN = json.loads((repo_paths.DATA / "broken.job.json").read_text())


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def tab(at: AppTest, label: str):
    """Opens a results tab (only the open one is drawn) and returns it."""
    at.session_state[keys.RESULT_TAB] = label
    at.run()
    return next(t for t in at.tabs if t.label == label)


def code_panes(at: AppTest) -> str:
    """The Code tab's line map, which it draws below both columns at the page's full width."""
    tab(at, "Converted code")
    return next(h.value for h in at.html if 'class="lm-pane lm-source"' in h.value)


def plotly_specs(element) -> list[dict]:
    return [json.loads(e.proto.spec) for e in element.get("plotly_chart")]


def test_default_page_loads_retracing_example_without_running(app: AppTest) -> None:
    """The first screen has a result: the example's recording, drawn before any Run (no job is
    submitted); an edit takes it away, and Run replaces it with a live one."""
    app.run()
    assert not app.exception
    assert app.text_area(key=keys.SOURCE).value == gallery.BY_SLUG["retracing"].source
    assert app.selectbox(key=keys.FUNCTION).value == "process"
    assert app.text_area(key=keys.CALLS).value.splitlines() == ["float32[3]", "float32[3]", "float32[2]"]
    assert metric(app, "Traces") == "2"
    assert any(
        shown(c.value).startswith("Recorded result of this example (TensorFlow 2.21.0") for c in app.caption
    )
    assert not any(c.value.startswith("Run ") for c in app.caption)
    app.text_area(key=keys.CALLS).input("float32[3]").run()  # no longer the example: no recording
    assert not any(m.label == "Traces" for m in app.metric)
    app.text_area(key=keys.CALLS).input("float32[3]\nfloat32[3]\nfloat32[2]").run()
    app.button(key=keys.RUN).click().run()  # a live run (replayed here) takes the recording's place
    assert any(c.value.startswith("Run 1 · TensorFlow") for c in app.caption)
    assert not any(c.value.startswith("Recorded result") for c in app.caption)


def test_run_retracing_shows_two_traces_and_every_tab(app: AppTest) -> None:
    app.query_params["example"] = "retracing"
    app.run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    assert metric(app, "Traces") == "2"
    assert [t.label for t in app.tabs] == [
        "Converted code",
        "Traces",
        "Timing",
        "Graph",
        "Console",
        "Problems",
    ]
    converted = tab(app, "Converted code").code
    assert any("ag__" in c.value and c.language == "diff" for c in converted)
    traces = plotly_specs(tab(app, "Traces"))
    assert traces[0]["data"][0]["y"] == [1, 1, 2]  # cumulative: traced, reused, traced
    console = [c.value for c in tab(app, "Console").code]
    assert console[0].startswith("Tracing! x.shape = (3,)") and console[1] == "(no output)"
    problems = tab(app, "Problems")
    assert any("print-at-trace" in shown(w.value) for w in problems.warning)  # report text: escaped
    assert any("◀ print-at-trace" in m.value for m in problems.markdown)
    # The article's claim, what TF did in this run, and whether the article is right (the
    # verdict presenter mode shows). Found by its column: the claims x versions table may be drawn.
    rows = next(d.value for d in app.dataframe if "is the article right?" in d.value.columns)
    (row,) = rows.to_dict("records")
    assert row["the article says"] == gallery.BY_SLUG["retracing"].article_claim
    assert row["TensorFlow 2.21.0 does"] == "tracing count: 2; error: none; warning print-at-trace: reported"
    assert row["is the article right?"] == "yes"


def test_only_the_open_tab_is_drawn(app: AppTest) -> None:
    app.query_params["example"] = "retracing"
    app.run()
    app.button(key=keys.RUN).click().run()
    graph = next(t for t in app.tabs if t.label == "Graph")
    assert not graph.get("plotly_chart") and not graph.get("graphviz_chart")  # hidden: not drawn
    assert app.session_state[keys.RESULT_TAB] == "Traces"  # the tab the example talks about
    graph = tab(app, "Graph")
    assert graph.get("plotly_chart") and graph.get("graphviz_chart")
    assert not next(t for t in app.tabs if t.label == "Traces").get("plotly_chart")
    assert metric(app, "Traces") == "2"  # the summary stays, no new run


def test_result_survives_reruns_without_resubmitting(app: AppTest) -> None:
    app.run()
    app.button(key=keys.RUN).click().run()
    from playground.ui.run import executor

    submitted = len(executor().executor.submitted)
    app.toggle(key=keys.JIT_COMPILE).set_value(True).run()
    assert metric(app, "Traces") == "2"
    assert len(executor().executor.submitted) == submitted


def test_edit_source_and_plan_then_run(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(SQUARE["source"]).run()
    assert app.selectbox(key=keys.FUNCTION).value == "square_sum"
    app.text_area(key=keys.CALLS).input("\n".join(SQUARE["calls"])).run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    assert metric(app, "Traces") == "3"
    rows = tab(app, "Traces").dataframe[0].value
    assert list(rows["traced"]) == ["traced", "traced", "traced"]
    assert "n" in rows["reason"][1]  # a Python scalar change retraced
    # Off the example, the URL carries the code compressed, so a reload restores it.
    assert share_link.decode_source(app.query_params["code"]) == SQUARE["source"]


def test_bad_call_plan_is_refused_next_to_the_field_and_keeps_text(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.CALLS).input("float32[3]\nflaot32[2]").run()
    app.button(key=keys.RUN).click().run()
    assert any("Call 2" in shown(e.value) and "flaot32" in shown(e.value) for e in app.error)
    assert app.text_area(key=keys.CALLS).value == "float32[3]\nflaot32[2]"
    assert not any(m.label == "Traces" for m in app.metric)


def test_bad_signature_is_refused(app: AppTest) -> None:
    app.run()
    app.text_input(key=keys.SIGNATURE).input("float32[None,").run()
    app.button(key=keys.RUN).click().run()
    assert any(shown(e.value).startswith("input_signature:") for e in app.error)  # by the field
    assert any(shown(e.value).startswith("Not run: input_signature:") for e in app.error)  # by Run


def test_error_report_highlights_line_in_problems(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(BROKEN["source"]).run()
    app.text_area(key=keys.CALLS).input("float32[3]").run()
    app.button(key=keys.RUN).click().run()
    problems = tab(app, "Problems")
    assert any("AttributeError" in e.value for e in problems.error)
    html = next(m.value for m in problems.markdown if "problem-source" in m.value)
    marked = [line for line in html.split("</div>") if 'class="problem-line"' in line]
    assert len(marked) == 1 and "x.numpy()" in marked[0]


def test_worker_crash_keeps_code_and_says_what_happened(app: AppTest, monkeypatch) -> None:
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:crashing")
    app.run()
    app.text_area(key=keys.SOURCE).input(SQUARE["source"]).run()
    app.text_area(key=keys.CALLS).input("\n".join(SQUARE["calls"])).run()
    app.button(key=keys.RUN).click().run()
    assert metric(app, "Status") == "killed"
    assert any("killed" in e.value for e in app.error)
    assert app.text_area(key=keys.SOURCE).value == SQUARE["source"]


def test_missing_recording_shows_playground_error_not_exception(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.CALLS).input("float32[9]").run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    # Said in words, without the exception's class name.
    assert any("no recorded report" in shown(e.value) and "Error" not in e.value for e in app.error), [
        e.value for e in app.error
    ]


def test_timing_tab_plots_modes_on_log_axis_and_phases(app: AppTest) -> None:
    app.run()
    app.toggle(key=keys.TIMING).set_value(True).run()
    app.toggle(key=keys.JIT_COMPILE).set_value(True).run()
    app.number_input(key=keys.TIMING_BUDGET).set_value(1.0).run()
    app.button(key=keys.RUN).click().run()
    figures = plotly_specs(tab(app, "Timing"))
    box, phases = figures[0], figures[1]
    assert [t["name"] for t in box["data"]] == ["eager", "graph", "xla"]
    assert box["layout"]["yaxis"]["type"] == "log"
    assert all(text.endswith(" µs") for text in box["layout"]["yaxis"]["ticktext"])  # units on every tick
    # One colour per mode, and the phases' colours none of the modes'.
    assert [t["marker"]["color"] for t in box["data"]] == [MODE_COLOURS[m] for m in ("eager", "graph", "xla")]
    assert [t["name"] for t in phases["data"]] == ["trace", "compile", "run"]
    assert phases["layout"]["barmode"] == "group" and phases["layout"]["yaxis"]["type"] == "log"
    assert all(text.endswith(" ms") for text in phases["layout"]["yaxis"]["ticktext"])
    assert {t["marker"]["color"] for t in phases["data"]}.isdisjoint(
        {t["marker"]["color"] for t in box["data"]}
    )
    graph_vs_eager = next(m.value for m in app.metric if m.label == "Graph vs eager")
    assert re.fullmatch(r"\d+\.\d× (faster|slower)", graph_vs_eager)
    app.toggle(key=keys.TIMING_LOG).set_value(False).run()
    assert plotly_specs(tab(app, "Timing"))[0]["layout"]["yaxis"]["type"] == "linear"
    tab(app, "Graph")  # the Timing tab is not drawn now; its toggle must survive
    assert plotly_specs(tab(app, "Timing"))[0]["layout"]["yaxis"]["type"] == "linear"


def test_example_query_param_and_gallery_picker(app: AppTest) -> None:
    other = next((e for e in gallery.EXAMPLES if e.slug != "retracing"), None)
    if other is None:
        pytest.skip("the gallery has one example only")
    app.query_params["example"] = other.slug
    app.run()
    assert app.text_area(key=keys.SOURCE).value == other.source
    app.selectbox(key=keys.EXAMPLE).set_value("retracing").run()
    assert app.text_area(key=keys.SOURCE).value == gallery.BY_SLUG["retracing"].source
    assert app.query_params["example"] == "retracing" and "code" not in app.query_params


def test_the_gallery_picker_follows_the_article_with_its_section_numbers(app: AppTest) -> None:
    from playground.gallery import article

    app.run()
    picker = app.selectbox(key=keys.EXAMPLE)
    assert picker.value == "retracing"  # a first visit opens on the gallery's first example
    assert picker.options[0].startswith("1 · ") and picker.options[0].endswith("(article-benchmark)")
    numbers = [o.split(" · ", 1)[0] for o in picker.options if " · " in o]
    order = [article.SECTION_OF[slug].number for slug in article.ORDER]
    assert numbers == order  # every example in the article's order, numbered
    app.session_state[keys.LANGUAGE] = "zh_CN"
    app.run()
    first = app.selectbox(key=keys.EXAMPLE).options[0]
    assert first.startswith("1 · ") and re.search("[\u4e00-\u9fff]", first)  # numbered, in Chinese


def test_share_link_round_trip_restores_state(app: AppTest) -> None:
    params = state.params_from_values(
        {
            keys.SOURCE: SQUARE["source"],
            keys.FUNCTION: "square_sum",
            keys.CALLS: "float32[4], n=2",
            keys.REDUCE_RETRACING: True,
            keys.SIGNATURE: "float32[None]",
            keys.TIMING_BUDGET: 3.0,
        }
    )
    for name, value in params.items():
        app.query_params[name] = value
    app.run()
    assert app.text_area(key=keys.SOURCE).value == SQUARE["source"]
    assert app.toggle(key=keys.REDUCE_RETRACING).value is True
    assert app.text_input(key=keys.SIGNATURE).value == "float32[None]"
    assert app.number_input(key=keys.TIMING_BUDGET).value == 3.0


def test_argument_builder_appends_call_and_signature(app: AppTest) -> None:
    app.run()
    assert not app.get("button") or keys.APPEND_CALL not in {b.key for b in app.button}  # folded
    app.session_state[keys.ARGS_PANEL] = True  # the user opens it
    app.run()
    # A parameter's own name labels its picker, plainly: screen readers read no backticks.
    assert app.selectbox(key=keys.param("kind", "x")).label == "x"
    app.text_input(key=keys.param("shape", "x")).input("None,3").run()
    app.button(key=keys.APPEND_CALL).click().run()
    assert app.text_area(key=keys.CALLS).value.splitlines()[-1] == "float32[1,3]"
    app.button(key=keys.BUILD_SIGNATURE).click().run()
    assert app.text_input(key=keys.SIGNATURE).value == "float32[None,3]"


def test_reduced_isolation_notice_and_environment_in_view(app: AppTest) -> None:
    app.run()
    app.button(key=keys.RUN).click().run()
    assert any("not for public hosting" in w.value for w in app.warning)
    assert any("TensorFlow 2.21" in shown(c.value) and "isolation" in c.value for c in app.caption)


# The boundary is checked in a fresh interpreter: pytest's own process has imported TensorFlow
# for the engine tests, so its sys.modules proves nothing about the app.
BOUNDARY_SCRIPT = """
import json, sys
from streamlit.testing.v1 import AppTest
from playground.ui import keys
import ui_support
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.run()
ui_support.until_warm()  # Run opens once the sandbox has imported TensorFlow
at.run()
at.button(key=keys.RUN).click().run()
for label in [t.label for t in at.tabs]:   # open every tab: each one draws only when open
    at.session_state[keys.RESULT_TAB] = label
    at.run()
print(json.dumps({
    "exception": [e.value for e in at.exception],
    "traces": next((m.value for m in at.metric if m.label == "Traces"), None),
    "tensorflow": "tensorflow" in sys.modules,
    "engine": sorted(n for n in sys.modules if n.startswith("playground.engine")),
}))
"""


def run_app_in_fresh_process(env_extra: dict[str, str]) -> dict:
    import os
    import subprocess

    env = {**os.environ, **env_extra}
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(APP).parent), str(repo_paths.SUPPORT)])
    done = subprocess.run(
        [sys.executable, "-c", BOUNDARY_SCRIPT, APP], env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_streamlit_process_never_imports_tensorflow() -> None:
    result = run_app_in_fresh_process({"PLAYGROUND_UI_EXECUTOR": "ui_support:replay"})
    assert result["exception"] == [] and result["traces"] == "2"
    assert result["tensorflow"] is False and result["engine"] == []


def test_real_sandbox_pool_end_to_end(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("playground.sandbox.pool", reason="the sandbox pool has not landed yet")
    monkeypatch.delenv("PLAYGROUND_UI_EXECUTOR", raising=False)
    result = run_app_in_fresh_process({})
    assert result["exception"] == [] and result["traces"] == "2"
    assert result["tensorflow"] is False and result["engine"] == []


def test_converted_code_shows_the_whole_original_function(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(SQUARE["source"]).run()
    app.text_area(key=keys.CALLS).input("\n".join(SQUARE["calls"])).run()
    app.button(key=keys.RUN).click().run()
    panes = code_panes(app)
    assert "lm-wide" in panes
    source = panes.split('class="lm-pane lm-converted"')[0]
    function = SQUARE["source"].split("\n", 2)[2].rstrip().splitlines()  # decorator to return
    rows = re.findall(r'<span class="lm-num">(\d+)</span>(.*?)</div>', source)
    assert [html.unescape(text) for _, text in rows] == function
    assert [int(n) for n, _ in rows] == list(range(3, 3 + len(function)))  # the file's numbers


def test_picking_a_source_line_lights_up_its_converted_lines(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(SQUARE["source"]).run()
    app.text_area(key=keys.CALLS).input("\n".join(SQUARE["calls"])).run()
    app.button(key=keys.RUN).click().run()
    loop = next(n for n, text in enumerate(SQUARE["source"].splitlines(), 1) if "for _ in" in text)
    tab(app, "Converted code")
    app.selectbox(key=keys.CODE_LINE).set_value(loop).run()
    panes = code_panes(app)
    converted = panes.split('class="lm-pane lm-converted"')[1]
    lit = [
        html.unescape(t)
        for t in re.findall(
            r'<div class="lm-row lm-s\d+ lm-selected"[^>]*><span class="lm-num">\d+</span>(.*?)</div>',
            converted,
        )
    ]
    assert lit and any("ag__.for_stmt" in line for line in lit)
    assert all("reduce_sum" not in line for line in lit)  # the return line is another line's


def test_graph_tab_lists_the_ops_of_one_source_line(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(SQUARE["source"]).run()
    app.text_area(key=keys.CALLS).input("\n".join(SQUARE["calls"])).run()
    app.button(key=keys.RUN).click().run()
    tab(app, "Graph")
    body = next(n for n, text in enumerate(SQUARE["source"].splitlines(), 1) if "y + 1.0" in text)
    app.selectbox(key=keys.GRAPH_LINE).set_value(body).run()
    graph = tab(app, "Graph")
    caption = next(c.value for c in graph.caption if " made " in c.value)
    made = int(caption.split(" made ")[1].split()[0])
    ops = graph.dataframe[0].value
    assert made == len(ops) > 0 and "AddV2" in set(ops["type"])
    assert set(ops["body"]) <= {b for b in ops["body"] if b.startswith("while_body")}


SWEEP = "x[0]=16,64,256,1024"


def run_sweep(app: AppTest) -> None:
    app.run()
    app.toggle(key=keys.TIMING).set_value(True).run()
    app.toggle(key=keys.JIT_COMPILE).set_value(True).run()
    app.text_input(key=keys.SWEEP).input(SWEEP).run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception


def test_sweep_chart_is_log_log_with_graph_retraces(app: AppTest) -> None:
    run_sweep(app)
    from playground.ui.run import executor

    assert executor().executor.submitted[-1].sweep == SWEEP
    timing = tab(app, "Timing")
    sweep = next(f for f in plotly_specs(timing) if "Time per call vs" in f["layout"]["title"]["text"])
    assert sweep["layout"]["xaxis"]["type"] == "log" and sweep["layout"]["yaxis"]["type"] == "log"
    assert "x dim 0" in sweep["layout"]["title"]["text"] and "CPU" in sweep["layout"]["title"]["text"]
    by_name = {t["name"]: t for t in sweep["data"]}
    assert sorted(by_name) == ["eager", "graph", "xla"]
    assert by_name["graph"]["x"] == [16, 64, 256, 1024]
    assert by_name["graph"]["text"][0] == "1 trace" and by_name["graph"]["text"][-1] == "4 traces (retraced)"
    assert any("traced again at every new size" in c.value for c in timing.caption)
    env = next(d.value for d in timing.dataframe if "setting" in d.value.columns)
    assert dict(zip(env["setting"], env["value"]))["Device"] == "CPU (AMD EPYC)"
    assert any("measured on **CPU (AMD EPYC)**" in shown(i.value) for i in timing.info)
    assert app.query_params["sweep"] == SWEEP


def test_bad_sweep_is_refused_under_its_field_and_kept(app: AppTest) -> None:
    app.run()
    app.toggle(key=keys.TIMING).set_value(True).run()
    for text, expected in (
        ("x[0]=16,abc", "not a positive integer"),
        ("y[0]=16,32", "'y' is not a parameter of process(x)"),
        ("x[1]=16,32", "has no dimension 1"),
    ):
        app.text_input(key=keys.SWEEP).input(text).run()
        app.button(key=keys.RUN).click().run()
        assert any(
            shown(e.value).startswith("Size sweep") and expected in shown(e.value) for e in app.error
        ), text
        assert app.text_input(key=keys.SWEEP).value == text
        assert not any(m.label == "Traces" for m in app.metric)
    # Hidden while timing is off, the text survives and comes back.
    app.toggle(key=keys.TIMING).set_value(False).run()
    app.toggle(key=keys.TIMING).set_value(True).run()
    assert app.text_input(key=keys.SWEEP).value == "x[1]=16,32"


def test_share_link_carries_sweep_and_export(app: AppTest) -> None:
    params = state.params_from_values(
        {
            keys.SOURCE: SQUARE["source"],
            keys.FUNCTION: "square_sum",
            keys.CALLS: "float32[4], n=2",
            keys.TIMING: True,
            keys.SWEEP: "x[0]=8,16",
            keys.EXPORT: True,
        }
    )
    assert params["sweep"] == "x[0]=8,16" and params["export"] == "1"
    for name, value in params.items():
        app.query_params[name] = value
    app.run()
    assert app.text_input(key=keys.SWEEP).value == "x[0]=8,16"
    assert app.toggle(key=keys.EXPORT).value is True


def plant_export(root: pathlib.Path, outside: pathlib.Path) -> None:
    (root / "savedmodel" / "variables").mkdir(parents=True)
    (root / "savedmodel" / "saved_model.pb").write_bytes(b"graph")
    (root / "savedmodel" / "variables" / "variables.index").write_bytes(b"index")
    (root / "tensorboard").mkdir()
    (root / "tensorboard" / "events.out.tfevents.1.host").write_bytes(b"events")
    outside.write_text("host secret")
    (root / "savedmodel" / "leak").symlink_to(outside)


def test_export_tab_shows_checks_listing_and_zips(app: AppTest, monkeypatch, tmp_path) -> None:
    import io
    import zipfile

    root = tmp_path / "playground-export-recorded"
    plant_export(root, tmp_path / "secret.txt")
    monkeypatch.setenv("PLAYGROUND_REPLAY_EXPORT_DIR", str(root))
    app.run()
    assert "Export" not in [t.label for t in app.tabs]  # the example's recording: no export
    app.toggle(key=keys.EXPORT).set_value(True).run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    from playground.ui.run import executor

    assert executor().executor.submitted[-1].export is True
    assert [t.label for t in app.tabs][-1] == "Export" and len(app.tabs) == 7
    export = tab(app, "Export")
    rows = export.dataframe[0].value
    assert list(rows["signature"]) == ["serving_default", "process_1"]
    assert list(rows["check"]) == ["pass", "FAIL"]
    assert any("No input_signature" in shown(i.value) for i in export.info)
    assert any("differ for: process_1" in shown(e.value) for e in export.error)
    codes = [c.value for c in export.code]
    assert any("signature_def['serving_default']" in c for c in codes)
    assert any("tensorboard --logdir tensorboard" in c for c in codes)
    buttons = export.get("download_button")
    assert len(buttons) == 2 and "leak" in " ".join(c.value for c in export.caption)
    archives = app.session_state[keys.RESULT].archives
    saved = zipfile.ZipFile(io.BytesIO(archives["savedmodel"].data))
    assert sorted(saved.namelist()) == ["savedmodel/saved_model.pb", "savedmodel/variables/variables.index"]
    assert zipfile.ZipFile(io.BytesIO(archives["tensorboard"].data)).namelist() == [
        "tensorboard/events.out.tfevents.1.host"
    ]
    assert not root.exists() and (tmp_path / "secret.txt").exists()
    app.toggle(key=keys.REDUCE_RETRACING).set_value(True).run()  # a rerun keeps the downloads
    assert len(tab(app, "Export").get("download_button")) == 2


EXPORT_SCRIPT = """
import io, json, os, sys, zipfile
from streamlit.testing.v1 import AppTest
from playground.ui import keys
import ui_support
at = AppTest.from_file(sys.argv[1], default_timeout=240)
at.session_state[keys.OPTIONS_PANEL] = True
at.run()
ui_support.until_warm()  # Run opens once the sandbox has imported TensorFlow
at.run()
at.toggle(key=keys.EXPORT).set_value(True).run()
at.button(key=keys.RUN).click().run()
result = at.session_state[keys.RESULT]
export = result.report.export
at.session_state[keys.RESULT_TAB] = "Export"
at.run()
tab = next((t for t in at.tabs if t.label == "Export"), None)
saved = result.archives.get("savedmodel")
print(json.dumps({
    "exception": [e.value for e in at.exception],
    "signatures": [s.key for s in export.signatures] if export else None,
    "checks": list(tab.dataframe[0].value["check"]) if tab and tab.dataframe else None,
    "zipped": sorted(zipfile.ZipFile(io.BytesIO(saved.data)).namelist()) if saved and saved.data else None,
    "left_on_disk": bool(export and export.path and os.path.exists(export.path)),
    "tensorflow": "tensorflow" in sys.modules,
}))
"""


def test_real_pool_export_tab_end_to_end() -> None:
    pytest.importorskip("playground.sandbox.exports", reason="the export side has not landed yet")
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PLAYGROUND_UI_EXECUTOR"}
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(APP).parent), str(repo_paths.SUPPORT)])
    done = subprocess.run(
        [sys.executable, "-c", EXPORT_SCRIPT, APP], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["exception"] == [] and result["signatures"], result
    assert set(result["checks"]) == {"pass"}, result
    assert "savedmodel/saved_model.pb" in result["zipped"]
    assert result["left_on_disk"] is False and result["tensorflow"] is False


def test_a_bomb_link_falls_back_to_the_example(app: AppTest) -> None:
    app.query_params["code"] = share_link.encode_source("a" * (8 << 20))
    app.run()
    assert not app.exception
    assert app.text_area(key=keys.SOURCE).value == gallery.BY_SLUG["retracing"].source


def test_a_null_byte_in_the_editor_is_named_not_a_crash(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input("def f(x):\n    return x\x00\n").run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    shown = " ".join(e.value for e in app.error) + " ".join(c.value for c in app.caption)
    assert "null byte" in shown


def test_code_editor_is_a_layer_over_the_source_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Default editor: the component draws (AppTest cannot type in it), the text lives in
    session_state[keys.SOURCE], and setting that is what typing does."""
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:replay")
    monkeypatch.delenv("PLAYGROUND_EDITOR", raising=False)
    monkeypatch.syspath_prepend(str(repo_paths.SUPPORT))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    assert not [t for t in at.text_area if t.key == keys.SOURCE]
    assert any("Ctrl+Enter" in c.value for c in at.caption)
    at.session_state[keys.SOURCE] = SQUARE["source"]
    at.run()
    assert at.selectbox(key=keys.FUNCTION).value == "square_sum"
    # The plain text box toggle swaps in the text area, with the same text.
    at.toggle(key=keys.PLAIN_EDITOR).set_value(True).run()
    assert at.text_area(key=keys.SOURCE).value == SQUARE["source"]
    at.toggle(key=keys.PLAIN_EDITOR).set_value(False).run()
    assert at.session_state[keys.SOURCE] == SQUARE["source"]


def test_an_editor_event_is_applied_once_and_submit_asks_for_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The code box's state value {id, type, text}: its text becomes the source once per id (a
    remount sends the last value again), and Ctrl+Enter (`submit`) also asks for a run."""
    from playground.ui import editor

    session: dict = {}
    monkeypatch.setattr(editor.st, "session_state", session)
    session[keys.CODE_EDITOR] = {"event": {"id": "1", "type": "blur", "text": "a = 1\n"}}
    editor.apply_editor_event()
    assert session[keys.SOURCE] == "a = 1\n" and keys.RUN_REQUESTED not in session
    session[keys.SOURCE] = "b = 2\n"  # code from outside since
    editor.apply_editor_event()  # the same event again: ignored
    assert session[keys.SOURCE] == "b = 2\n"
    session[keys.CODE_EDITOR] = {"event": {"id": "2", "type": "submit", "text": "c = 3\n"}}
    editor.apply_editor_event()
    assert session[keys.SOURCE] == "c = 3\n" and session[keys.RUN_REQUESTED] is True
    session[keys.CODE_EDITOR] = {"event": {"id": "", "type": "submit", "text": "d"}}  # malformed
    editor.apply_editor_event()
    assert session[keys.SOURCE] == "c = 3\n"


def test_editor_that_cannot_load_falls_back_to_the_text_area(monkeypatch: pytest.MonkeyPatch) -> None:
    from playground.ui import editor

    monkeypatch.setattr(editor, "_load_component", lambda: None)
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:replay")
    monkeypatch.delenv("PLAYGROUND_EDITOR", raising=False)
    monkeypatch.syspath_prepend(str(repo_paths.SUPPORT))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert any("could not be loaded" in w.value for w in at.warning)
    assert at.text_area(key=keys.SOURCE).value == gallery.BY_SLUG["retracing"].source


def test_first_use_costs_are_paid_at_start_without_tensorflow():
    """app.py's lifespan pays them before the first visitor. In its own interpreter, since it
    sets process-wide state: the flag shows that this Streamlit still has the private check."""
    import subprocess

    code = (
        "import sys\n"
        "from playground.ui import run\n"
        "from streamlit import delta_generator\n"
        "run.pay_first_use_costs()\n"
        "assert delta_generator._use_warning_has_been_displayed\n"
        "assert 'tensorflow' not in sys.modules and 'playground.engine' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=repo_paths.ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture
def folded_page(app: AppTest) -> AppTest:
    """The page as a first visitor gets it: nothing opened yet."""
    del app.session_state[keys.OPTIONS_PANEL]
    return app


def drawn_keys(at: AppTest) -> set:
    return {
        w.key for kind in ("toggle", "text_input", "number_input", "selectbox", "radio") for w in at.get(kind)
    }


def test_folded_panels_draw_nothing_inside_and_hold_the_values(folded_page: AppTest) -> None:
    app = folded_page
    app.run()
    assert not drawn_keys(app) & set(options.PANEL_KEYS)  # the options: not drawn
    assert not app.get("file_uploader")  # nor the uploader
    app.session_state[keys.OPTIONS_PANEL] = True  # the user opens the options
    app.run()
    app.toggle(key=keys.JIT_COMPILE).set_value(True).run()
    app.text_input(key=keys.SIGNATURE).input("float32[None]").run()
    # The title now names them (a title is part of the expander's id): it stays open.
    assert app.toggle(key=keys.JIT_COMPILE).value is True
    app.toggle(key=keys.JIT_COMPILE).set_value(False).run()
    assert app.text_input(key=keys.SIGNATURE).value == "float32[None]"
    app.toggle(key=keys.JIT_COMPILE).set_value(True).run()
    app.session_state[keys.OPTIONS_PANEL] = False  # folded again
    app.run()
    app.run()  # two runs without drawing them
    assert not drawn_keys(app) & set(options.PANEL_KEYS)
    assert any(e.label == "Options: input_signature, XLA" for e in app.expander)
    app.button(key=keys.RUN).click().run()
    from playground.ui.run import executor

    job = executor().executor.submitted[-1]  # the replay has no report for it: the job is the check
    assert job.jit_compile is True and job.signature == "float32[None]"


def test_options_open_by_themselves_for_a_links_settings_and_a_fields_error(folded_page: AppTest) -> None:
    app = folded_page
    params = state.params_from_values(
        {
            keys.SOURCE: SQUARE["source"],
            keys.FUNCTION: "square_sum",
            keys.CALLS: "float32[4], n=2",
            keys.REDUCE_RETRACING: True,
        }
    )
    for name, value in params.items():
        app.query_params[name] = value
    app.run()
    assert app.toggle(key=keys.REDUCE_RETRACING).value is True  # drawn: the panel opened
    app.session_state[keys.OPTIONS_PANEL] = False  # folded by the user: stays so
    app.run()
    assert keys.REDUCE_RETRACING not in drawn_keys(app)
    app.session_state[keys.SIGNATURE] = "float32[None,"  # an error inside a folded panel
    app.button(key=keys.RUN).click().run()
    assert app.text_input(key=keys.SIGNATURE).value == "float32[None,"  # opened to show it
    assert any(shown(e.value).startswith("input_signature:") for e in app.error)  # by the field
    assert any(shown(e.value).startswith("Not run: input_signature:") for e in app.error)  # by Run
    app.toggle(key=keys.TIMING).set_value(True).run()  # named "timing" / "计时"
    app.session_state[keys.OPTIONS_PANEL] = False  # the user folds it anyway
    app.run()
    assert keys.SIGNATURE not in drawn_keys(app)  # the same error: stays folded
    app.radio(key=keys.LANGUAGE).set_value("zh_CN").run()  # the title's words change
    assert keys.SIGNATURE not in drawn_keys(app)  # not a reason to open


def test_the_page_refuses_a_tensor_over_the_servers_element_limit_as_the_api_does(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page checks its plan through the API's request path, so PLAYGROUND_MAX_TENSOR_ELEMENTS
    holds here too (the page once parsed calls with the default limit only)."""
    monkeypatch.setenv("PLAYGROUND_MAX_TENSOR_ELEMENTS", "1000")
    app.run()
    app.text_area(key=keys.CALLS).input("float32[10,10]\nfloat32[100,100]").run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    # Said next to Run (escaped markdown) and by the plan, as it is typed.
    said = " ".join(shown(e.value) for e in [*app.error, *app.warning])
    assert "Call 2 ('float32[100,100]')" in said and "over the cap of 1,000" in said, said


def test_functions_keras_made_are_in_the_traces_tab_folded_by_maker(app: AppTest) -> None:
    """A script that only calls fit and predict: Keras's train and predict steps, and tf.data's
    map functions, each under its maker, folded until opened (recorded: tests/data/record.py)."""
    recorded = json.loads((repo_paths.DATA / "keras_fit.job.json").read_text())
    app.run()
    app.text_area(key=keys.SOURCE).input(recorded["source"]).run()
    app.text_area(key=keys.CALLS).input("").run()  # a script makes its own calls
    app.button(key=keys.RUN).click().run()
    assert not app.exception
    assert metric(app, "Traces") == "0"  # none of the user's own
    traces = tab(app, "Traces")
    assert not traces.info  # not "No calls ran"
    titles = [e.label for e in traces.expander]
    train = next(i for i, t in enumerate(titles) if "TensorFlowTrainer.make_train_function" in shown(t))
    assert shown(titles[train]).endswith("from line 8: 2 function(s), 4 trace(s)")  # one_step_on_data too
    assert any(shown(t).startswith("tf.data: DatasetV2.map") for t in titles)
    assert not traces.dataframe  # every panel folded
    app.session_state[f"{keys.LIBRARY_MAKER}_{train}"] = True
    app.run()
    rows = tab(app, "Traces").dataframe[0].value.to_dict("records")
    assert [(r["traced"], r["line"]) for r in rows] == [("traced", 8), ("traced", 8)]
    assert rows[1]["reason"].startswith("iterator[0]: shape (16, 3) -> (None, 3)")


def test_code_without_a_function_runs_as_a_script_and_a_syntax_error_speaks_for_itself(app: AppTest) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input("import tensorflow as tf\nprint(tf.constant(1))\n").run()
    assert [c.value for c in app.caption if "No function defined" in c.value] == [
        "No function defined: Run runs the whole file as a script, as `python file.py` would."
    ]
    assert not [i for i in app.info if "No function" in i.value]
    app.text_area(key=keys.SOURCE).input("def broken(:\n").run()
    assert any("Syntax error" in e.value for e in app.error)
    assert not [c for c in app.caption if "No function" in c.value]
    assert not [i for i in app.info if "No function" in i.value]


def test_an_example_opens_on_its_recorded_result_and_the_tab_it_talks_about(app: AppTest) -> None:
    from playground.ui.results import TABS

    assert {e.tab for e in gallery.EXAMPLES} <= {"", *TABS}
    app.run()
    assert app.session_state[keys.RESULT_TAB] == "Traces"  # retracing talks about its traces
    app.selectbox(key=keys.EXAMPLE).set_value("tf-print").run()
    assert app.session_state[keys.RESULT_TAB] == "Console"  # "watch the Console tab"
    assert metric(app, "Traces") == str(gallery.BY_SLUG["tf-print"].expect.tracing_count)  # recorded, no Run
    console = [c.value for c in next(t for t in app.tabs if t.label == "Console").code]
    assert sum(c.startswith("running with x = [") for c in console) == 3  # tf.print on every call


def test_maintenance_closes_run_with_the_operators_words_and_reopens_it(monkeypatch, tmp_path) -> None:
    from app_support import app_test

    notice = tmp_path / "maintenance"
    notice.write_text("Upgrading to TensorFlow 2.21.1: back at 14:00 UTC.")
    monkeypatch.setenv("PLAYGROUND_MAINTENANCE_FILE", str(notice))
    at = app_test(monkeypatch)
    at.run()
    assert [shown(w.value) for w in at.warning] == ["Upgrading to TensorFlow 2.21.1: back at 14:00 UTC."]
    assert at.button(key=keys.RUN).disabled
    assert any("Recorded result" in shown(c.value) for c in at.caption)  # the example's result still shows
    notice.unlink()  # the operator reopens: the next page run takes Runs again
    at.run()
    assert not at.warning and not at.button(key=keys.RUN).disabled
    at.button(key=keys.RUN).click().run()
    assert at.session_state[keys.RESULT].report.status == "ok"


def test_numbers_side_by_side_fill_the_timing_tab_with_a_verdict_and_a_row_per_output(app: AppTest) -> None:
    app.query_params["example"] = "retracing"
    app.run()
    app.session_state["numbers"] = True
    app.button(key=keys.RUN).click().run()
    numbers = app.session_state[keys.RESULT].report.functions[0].numbers
    assert numbers is not None and len(numbers.calls) == 3
    app.session_state[keys.RESULT_TAB] = "Timing"
    app.run()
    panel = tab(app, "Timing")
    assert [shown(s.value) for s in panel.success][:1] == [
        "Eager, graph and XLA agree within 1e-05 on all 9 output(s) compared."
    ]
    rows = panel.dataframe[0].value
    assert len(rows) == 9 and set(rows["verdict"]) == {"match"}
    assert "num" in app.query_params  # the share link carries it
    app.session_state[keys.RESULT_TAB] = "Graph"
    app.run()
    assert [shown(s.value) for s in tab(app, "Graph").success] == [
        "XLA has a kernel for every op of this graph: jit_compile=True would take it."
    ]


def test_xlas_passes_one_by_one_a_pass_a_compare_and_a_search_from_the_recorded_example(app: AppTest) -> None:
    from playground.gallery.recorded import recorded

    passes = recorded("xla", "en").functions[0].hlo_passes
    algsimp = next(i for i, p in enumerate(passes) if p.name == "algsimp")
    app.query_params["example"] = "xla"
    app.run()
    graph = tab(app, "Graph")
    assert any(e.label == "XLA's passes, one by one" for e in graph.expander)
    app.selectbox(key=keys.HLO_PASS).set_value(algsimp).run()
    graph = next(t for t in app.tabs if t.label == "Graph")
    shown_diffs = [c.value for c in graph.code if c.language == "diff"]
    # What algsimp changed: the diff against the snapshot before it, its lines removed and added.
    before, after = passes[algsimp - 1].hlo.splitlines(), passes[algsimp].hlo.splitlines()
    gone = [line for line in before if line not in after]
    assert gone and all(f"-{line}" in shown_diffs[0].splitlines() for line in gone)
    app.selectbox(key=keys.HLO_COMPARE_A).set_value(0).run()
    app.selectbox(key=keys.HLO_COMPARE_B).set_value(0).run()
    graph = next(t for t in app.tabs if t.label == "Graph")
    assert "The two snapshots are the same text." in [c.value for c in graph.code if c.language == "diff"]
    app.text_input(key=keys.HLO_SEARCH).input("fusion").run()
    having = [i for i, p in enumerate(passes) if "fusion" in p.hlo]
    assert having and any(
        f"In {len(having)} of {len(passes)} snapshots" in shown(c.value) for c in app.caption
    )


def test_without_passes_the_graph_tab_says_how_to_see_them(app: AppTest) -> None:
    app.run()  # retracing: no --passes
    graph = tab(app, "Graph")
    assert any('Turn on "Passes one by one (Grappler and XLA)"' in shown(c.value) for c in graph.caption)
    assert not any(e.label == "Grappler's passes, one by one" for e in graph.expander)


def test_a_reports_chart_is_built_once_not_on_every_rerun(app: AppTest, monkeypatch) -> None:
    from playground.reports import figures
    from playground.ui.results import traces

    built = []

    def counted(function):  # type: ignore[no-untyped-def]
        built.append(function.name)
        return figures.tracing_figure(function)

    counted.__qualname__ = "counted"
    monkeypatch.setattr(traces, "tracing_figure", counted)
    app.run()  # the example's recorded report: its chart
    app.button(key=keys.RUN).click().run()  # a live report: its own
    assert built == ["process", "process"]
    spec = plotly_specs(tab(app, "Traces"))
    for _ in range(3):
        app.run()  # a press elsewhere: the page reruns, the report is the same
    assert built == ["process", "process"]
    assert plotly_specs(tab(app, "Traces")) == spec  # drawn from the one built
