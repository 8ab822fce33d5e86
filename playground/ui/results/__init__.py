"""The results area: the summary line, the claim checks and one tab per view of the report."""
from __future__ import annotations

import streamlit as st

from ... import gallery, notebook
from ...i18n import _
from ...job import FunctionReport, Report
from .. import keys
from ..state import Result
from . import code, compare, console, export, graph, problems, timing, traces

TABS = ("Converted code", "Traces", "Timing", "Graph", "Console", "Problems")
# Controls drawn inside a tab, with their defaults. Streamlit forgets a widget's value in a run
# that does not draw it, and only the open tab is drawn; held as plain state, they survive.
TAB_CONTROLS = {keys.TIMING_LOG: True, keys.TIMING_POINTS: True}


def isolation(report: Report) -> str:
    return report.sandbox.isolation if report.sandbox else "none"


def environment_line(report: Report, number: int) -> None:
    """Device, TF version and isolation, always in view next to the numbers they produced."""
    level = isolation(report)
    ex = report.executor    # Ray: the node, its pool actor, and whether the worker was forked warm
    node = (f" · node {ex.node}" + (f" · actor {ex.actor[:8]}" if ex.actor else "") +
            {True: " · warm", False: " · cold"}.get(ex.warm, "")) if ex else ""
    st.caption(f"Run {number} · TensorFlow {report.tensorflow_version} · device **{report.device}** · "
               f"isolation **{level}**{node} · {report.duration_s:.2f} s")
    for fallback in report.fallbacks:    # a private TF API this version lacks (engine/compat.py)
        text = _("On TensorFlow {version}, {feature}: {detail}").format(
            version=report.tensorflow_version, feature=fallback.feature, detail=fallback.detail)
        (st.caption if fallback.available else st.warning)(text)
    if level != "bubblewrap":
        st.warning(f"Reduced isolation ({level}): not for public hosting. Jobs ran without the "
                   "bubblewrap sandbox, so pasted code could reach this machine.")


def summary(report: Report) -> None:
    calls = sum(len(f.calls) for f in report.functions)
    failed = sum(1 for f in report.functions for c in f.calls if c.error and not c.handled)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Traces", report.tracing_count,
              help="How many times tf.function traced the Python body into a graph.")
    c2.metric("Calls", calls)
    c3.metric("Problems", len(report.warnings) + failed + (1 if report.error else 0))
    c4.metric("Status", report.status)
    if report.status != "ok" or report.error:
        # The report's message names the exception and its line; the Problems tab has the rest.
        text = report.message or (report.error.message if report.error else "")
        st.error(f"{report.status}: {text}" if text else report.status)
    elif report.message:
        st.success(report.message)


def claim_checks(result: Result) -> None:
    example = gallery.BY_SLUG.get(result.example or "")
    if example is None:
        return
    checks = gallery.check(example, result.report)
    if not checks:
        return
    st.markdown(f"**Article says vs TensorFlow {result.report.tensorflow_version} does** "
                f"(`{example.slug}`)")
    if example.article_claim:
        st.caption(f"Article: {example.article_claim}")
    rows = [{"check": c.what, "expected": c.expected, "this run": c.actual,
             "holds": "yes" if c.holds else "NO: differs"} for c in checks]
    st.dataframe(rows, hide_index=True, width="stretch")


def pick_function(report: Report) -> FunctionReport | None:
    if not report.functions:
        return None
    names = [f.name for f in report.functions]
    if len(names) > 1:
        st.selectbox("Function", names, key=keys.RESULT_FUNCTION)
    chosen = st.session_state.get(keys.RESULT_FUNCTION, names[0])
    return next((f for f in report.functions if f.name == chosen), report.functions[0])


def notebook_download(result: Result) -> None:
    """The run as a Jupyter notebook in plain TensorFlow; built once per run, not per rerun."""
    held = st.session_state.get(keys.NOTEBOOK)
    if not held or held[0] != result.number:
        held = (result.number, notebook.dumps(result.job, result.report))
        st.session_state[keys.NOTEBOOK] = held
    name = (result.job.function or "script").replace(".", "_")
    st.download_button(_("Download as a Jupyter notebook"), held[1], f"{name}.ipynb",
                       "application/x-ipynb+json", key=keys.DOWNLOAD_NOTEBOOK,
                       help=_("The code, the call plan as real calls, the tracing count after each "
                              "call, the converted code (and a timeit cell when timing was on), "
                              "in plain TensorFlow."))


def render(result: Result) -> None:
    report = result.report
    if result.comparison is not None:   # compare mode: both sides, side by side
        compare.render(result)
        return
    environment_line(report, result.number)
    summary(report)
    notebook_download(result)
    claim_checks(result)
    function = pick_function(report)
    views = [lambda: code.render(result, function), lambda: traces.render(function),
             lambda: timing.render(report, function), lambda: graph.render(function, result.job.source),
             lambda: console.render(report, function), lambda: problems.render(result)]
    labels = list(TABS)
    if result.job.export or report.export is not None:
        labels.append("Export")
        views.append(lambda: export.render(result))
    # Only the open tab is drawn (switching tabs reruns): hidden charts, graphs and tables
    # cost the browser about 3 CPU-s per run (bench/load_test.py), and the server its time.
    for key, default in TAB_CONTROLS.items():
        st.session_state[key] = st.session_state.get(key, default)
    tabs = st.tabs(labels, key=keys.RESULT_TAB, on_change="rerun")
    for tab, view in zip(tabs, views):
        if tab.open:
            with tab:
                view()
