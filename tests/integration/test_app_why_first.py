"""AppTest flows (recorded reports, no TensorFlow here) for what the page says first: why a run
failed before the error as raised, nothing that contradicts the user's code, and a saved
trace-mode report shown as its own document."""

from __future__ import annotations

import json
import re

import repo_paths
from app_support import app  # noqa: F401 - fixture
from streamlit.testing.v1 import AppTest

from playground.contract.job import Report
from playground.reports import html_report
from playground.reports.safe_text import unescape_markdown as shown
from playground.ui import editor, keys

NUMPY_JIT = json.loads((repo_paths.DATA / "numpy_jit.job.json").read_text())
SHAPE_NONE = json.loads((repo_paths.DATA / "shape_none.job.json").read_text())
TRACE_FILE = repo_paths.DATA / "trace_program.json"


def run_job(app: AppTest, job: dict) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(job["source"]).run()
    app.selectbox(key=keys.FUNCTION).set_value(job["function"]).run()
    app.text_area(key=keys.CALLS).input("\n".join(job["calls"])).run()
    app.button(key=keys.RUN).click().run()
    assert not app.exception


def open_tab(app: AppTest, label: str):
    app.session_state[keys.RESULT_TAB] = label
    app.run()
    return next(t for t in app.tabs if t.label == label)


def drawn(node) -> list:
    """The elements under node in the order the page draws them, containers opened."""
    out = []
    for child in getattr(node, "children", {}).values():
        out.append(child)
        out += drawn(child)
    return out


def test_a_jit_compile_failure_says_why_first_and_folds_xlas_error(app: AppTest) -> None:
    run_job(app, NUMPY_JIT)  # jit_compile=True in the decorator; the run's option stays off
    assert app.toggle(key="jit_compile").value is False
    status = next(
        i for i, e in enumerate(drawn(app.main)) if e.type == "error" and "raised" in shown(e.value)
    )
    after = [e for e in drawn(app.main)[status + 1 :] if e.type in ("markdown", "code", "expander")]
    assert after[0].type == "markdown" and "Why it failed" in after[0].value
    assert "PyFunc at line 7" in shown(after[0].value)
    assert after[1].type == "expander" and "The error as raised" in after[1].label  # XLA's words, folded

    problems = drawn(open_tab(app, "Problems"))
    assert problems[0].type == "error" and shown(problems[0].value).startswith("**Why it failed** (line 7)")
    assert "XLA has no kernel on XLA_CPU_JIT for 1 op(s) of this graph: PyFunc at line 7." in shown(
        problems[0].value
    )
    folded = next(e for e in problems if e.type == "expander")
    assert shown(folded.label).startswith("The error as raised: **InvalidArgumentError** in call 1, line 7")
    assert "Detected unsupported operations" in folded.code[0].value

    graph = drawn(open_tab(app, "Graph"))
    words = " ".join(
        shown(str(getattr(e, "value", ""))) for e in graph if e.type in ("error", "warning", "caption")
    )
    assert "Turn on jit_compile" not in words  # the decorator already says jit_compile=True
    assert "No XLA HLO: the compile with jit_compile=True failed: XLA has no kernel" in words
    first = next(e for e in graph if e.type in ("error", "metric", "info", "warning"))
    assert first.type == "error" and "PyFunc at line 7" in shown(first.value)  # above the op counts


def test_a_shape_error_is_explained_by_its_pitfall_and_its_traceback_has_no_blank_runs(app: AppTest) -> None:
    run_job(app, SHAPE_NONE)
    problems = drawn(open_tab(app, "Problems"))
    assert problems[0].type == "error" and "len(x) in halves is a Python int" in shown(problems[0].value)
    assert not any(e.type == "warning" and "len(x)" in shown(e.value) for e in problems)  # said once
    raised = next(e for e in problems if e.type == "expander").code[0].value
    assert "Input to reshape is a tensor with 3 values" in raised
    assert not re.search(r"\n[ \t]*\n[ \t]*\n", raised)  # TF left a blank line per hidden frame


def open_saved(app: AppTest, path=TRACE_FILE) -> Report:
    """As the file opener does, without the browser's upload: the same bytes, the same checks."""
    app.run()
    result = editor.saved_result(path.name, path.read_bytes(), 1)
    app.session_state[keys.RESULT] = result
    app.run()
    assert not app.exception
    return result.report


def test_a_saved_trace_report_shows_its_program_its_lines_and_the_html_reports_counts(app: AppTest) -> None:
    report = open_saved(app)
    info = " ".join(shown(i.value) for i in app.info)
    assert "Saved report `trace_program.json` of `train.py`" in info
    assert not any(e.label.startswith(("About this example", "Based on example")) for e in app.expander)
    assert not any("pasted code could reach" in w.value for w in app.warning)
    assert any("ran in your own process" in shown(c.value) for c in app.caption)
    assert not app.get("download_button")  # no notebook of code the report does not hold
    page_calls = int(next(m.value for m in app.metric if m.label == "Calls"))
    html = html_report.render(report)
    counted = re.search(r"<code>step</code></td><td class=\"n\">\d+</td><td class=\"n\">(\d+)</td>", html)
    assert counted and page_calls == int(counted.group(1)) == 30  # 3 traced and listed, 27 counted

    traces = drawn(open_tab(app, "Traces"))  # the 27 calls not listed are said, not hidden
    assert any(
        e.type == "caption" and "27 call(s) reused a trace and are not listed" in e.value for e in traces
    )

    problems = drawn(open_tab(app, "Problems"))
    warning = next(e for e in problems if e.type == "warning")
    assert "(train.py:12)" in shown(warning.value)
    cited = next(e.value for e in problems if e.type == "markdown" and "problem-source" in e.value)
    marked = [row for row in cited.split("</div>") if 'class="problem-line"' in row]
    assert len(marked) == 1 and "step(tf.ones([2]), lr)" in marked[0] and "retracing-cause" in marked[0]
    assert "@tf.function" in cited and "train.py" in cited
    assert not any("Your code, with the offending" in str(getattr(e, "value", "")) for e in problems)
    for label in ("Graph", "Converted code", "Timing"):  # it records no graph, code or timing
        said = " ".join(shown(i.value) for i in open_tab(app, label).info)
        assert "Trace mode" in said and "Turn on" not in said and "AutoGraph produced no" not in said, label
