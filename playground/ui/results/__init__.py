"""The results area: the summary line, the claim checks and one tab per view of the report."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ... import gallery
from ...contract import i18n
from ...contract.i18n import N_, _, _p
from ...contract.job import FunctionReport, Report
from ...gallery import article
from ...reports import drawn, failure, notebook, tables
from ...reports.safe_text import code_span
from ...reports.safe_text import markdown_literal as md
from .. import folded, keys
from ..state import Result
from . import code, compare, console, export, graph, problems, timing, traces

# The tabs by English name, shown in context "tab": "Traces" is also a metric's label.
TAB = "tab"
TABS = ("Converted code", "Traces", "Timing", "Graph", "Console", "Problems")
EXPORT_TAB = "Export"


def tab_label(name: str) -> str:
    labels = {
        "Converted code": _p("tab", "Converted code"),
        "Traces": _p("tab", "Traces"),
        "Timing": _p("tab", "Timing"),
        "Graph": _p("tab", "Graph"),
        "Console": _p("tab", "Console"),
        "Problems": _p("tab", "Problems"),
        "Export": _p("tab", "Export"),
    }
    return labels.get(name, name)


# Controls drawn inside a tab, with their defaults. Streamlit forgets a widget's value in a run
# that does not draw it, and only the open tab is drawn; held as plain state, they survive.
TAB_CONTROLS = {keys.TIMING_LOG: True, keys.TIMING_POINTS: True}


def isolation(report: Report) -> str:
    return report.sandbox.isolation if report.sandbox else "none"


def environment_line(report: Report, number: int, saved: bool = False) -> None:
    """Device, TF version and isolation, always in view next to the numbers they produced.
    Every string of a report is escaped where markdown renders it (reports/safe_text.py). A
    saved report ran elsewhere, not on this server: no warning about this server's isolation;
    trace mode's ran in the user's own process, and the line says so."""
    if saved and report.trace is not None:
        st.caption(
            _(
                "Trace mode · TensorFlow {version} · device **{device}** · ran in your own process "
                "(no sandbox) · {seconds} s"
            ).format(
                version=md(report.tensorflow_version),
                device=md(report.device),
                seconds=f"{report.duration_s:.2f}",
            )
        )
        return
    level = isolation(report)
    ex = report.executor  # Ray: the node, its pool actor, and whether the worker was forked warm
    warmth: dict[bool | None, str] = {True: _(" · warm"), False: _(" · cold")}  # None: not said
    node = (
        (
            _(" · node {node}").format(node=md(ex.node))
            + (_(" · actor {actor}").format(actor=md(ex.actor[:8])) if ex.actor else "")
            + warmth.get(ex.warm, "")
        )
        if ex
        else ""
    )
    st.caption(
        _(
            "Run {number} · TensorFlow {version} · device **{device}** · isolation "
            "**{isolation}**{node} · {seconds} s"
        ).format(
            number=number,
            version=md(report.tensorflow_version),
            device=md(report.device),
            isolation=md(level),
            node=node,
            seconds=f"{report.duration_s:.2f}",
        )
    )
    for fallback in report.fallbacks:  # a private TF API this version lacks (engine/compat.py)
        text = _("On TensorFlow {version}, {feature}: {detail}").format(
            version=md(report.tensorflow_version), feature=md(fallback.feature), detail=md(fallback.detail)
        )
        (st.caption if fallback.available else st.warning)(text)
    if level != "bubblewrap" and not saved:
        st.warning(
            _(
                "Reduced isolation ({isolation}): not for public hosting. Jobs ran without "
                "the bubblewrap sandbox, so pasted code could reach this machine."
            ).format(isolation=md(level))
        )


def summary(result: Result) -> None:
    report = result.report
    calls = sum(tables.calls_made(f) for f in report.functions)  # trace mode lists only some
    failed = sum(1 for f in report.functions for c in f.calls if c.error and not c.handled)
    c1, c2, c3, c4 = st.columns(4)
    delta = None
    if result.before_fix is not None:  # this run tried a fix: its count against the run before
        number, traces = result.before_fix
        delta = _("{change} vs run {number}").format(
            change=f"{report.tracing_count - traces:+d}", number=number
        )
    c1.metric(
        _("Traces"),
        report.tracing_count,
        delta=delta,
        delta_color="inverse",  # fewer traces is better
        help=_("How many times tf.function traced the Python body into a graph."),
    )
    c2.metric(_("Calls"), calls)
    c3.metric(_("Problems"), len(report.warnings) + failed + (1 if report.error else 0))
    c4.metric(_("Status"), md(status_text(report.status)))  # a metric's value is markdown
    if report.status != "ok" or report.error:
        text = report.message or (report.error.message if report.error else "")
        status = status_text(report.status)
        st.error(_("{status}: {message}").format(status=md(status), message=md(text)) if text else md(status))
        what_went_wrong(result)
    elif report.message:
        st.success(md(report.message))


def what_went_wrong(result: Result) -> None:
    """The first error of the run under the status: where we can say why it failed, that
    first, and the error as raised folded under it; else its type, which call, which line, and
    its full message (TensorFlow's "in user code:" block with the user's own frames). The
    Problems tab has every error and the traceback."""
    errors = problems.grouped_errors(result)
    if not errors:
        return
    where, error = errors[0]
    line = _(", line {line}").format(line=error.line) if error.line else ""
    heading = _("**{type}** in {where}{line}:").format(type=md(error.type), where=where, line=line)
    message = failure.collapse_blank_lines(error.message or error.type)
    explained = failure.explanations(result.report)
    if explained:
        st.markdown(problems.explanation_text(explained[0]))
        with st.expander(_("The error as raised: {heading}").format(heading=heading.removesuffix(":"))):
            st.code(message, language="text", wrap_lines=True)
    else:
        st.markdown(heading)
        st.code(message, language="text", wrap_lines=True)
    if len(errors) > 1:
        st.caption(_("{n} more error(s) in the Problems tab.").format(n=len(errors) - 1))


def out_of_date(result: Result, values: dict) -> bool:
    """Whether the code, the function or the plan changed since this result's run."""
    from ..plan import call_lines

    job = result.job
    if result.saved:  # a report from a file has no inputs of this page behind it
        return False
    return (
        str(values.get(keys.SOURCE) or "") != job.source
        or (str(values.get(keys.FUNCTION) or "") or None) != job.function
        or tuple(call_lines(str(values.get(keys.CALLS) or ""))) != tuple(job.calls)
    )


STATUSES = {
    "ok": N_("ok"),
    "error": N_("error"),
    "timeout": N_("timeout"),
    "memory": N_("memory"),
    "killed": N_("killed"),
}


def status_text(status: str) -> str:
    """The report's status code as a word of the reader's language."""
    return _(STATUSES[status]) if status in STATUSES else status


def claim_checks(result: Result) -> None:
    """The article's claim, what this run of TensorFlow did, and whether the article is right:
    the verdict presenter mode shows (gallery/article.py)."""
    example = gallery.BY_SLUG.get(result.example or "")
    if example is None:
        return
    found = article.verdict(example, result.report)
    if not found.checks:
        return
    version = result.report.tensorflow_version
    st.markdown(
        _("**The article says, TensorFlow {version} does** ({slug})").format(
            version=md(version), slug=code_span(example.slug)
        )
    )
    row = {
        _("the article says"): _(example.article_claim) if example.article_claim else "-",
        _("TensorFlow {version} does").format(version=version): "; ".join(
            f"{c.what}: {c.actual}" for c in found.checks
        ),
        _("is the article right?"): found.answer(),
    }
    st.dataframe([row], hide_index=True, width="stretch")
    if found.kind == "unexpected":  # the run, not the article, is the news: what differed
        rows = [
            {_("check"): c.what, _("measured before"): c.expected, _("this run"): c.actual}
            for c in found.checks
            if not c.holds
        ]
        st.dataframe(rows, hide_index=True, width="stretch")


def pick_function(report: Report) -> FunctionReport | None:
    if not report.functions:
        return None
    names = [f.name for f in report.functions]
    if len(names) > 1:
        st.selectbox(_("Function"), names, key=keys.RESULT_FUNCTION)
    chosen = st.session_state.get(keys.RESULT_FUNCTION, names[0])
    return next((f for f in report.functions if f.name == chosen), report.functions[0])


def notebook_download(result: Result) -> None:
    """The run as a Jupyter notebook in plain TensorFlow, built when the button is pressed (a
    deferred download): building and validating it on every Run cost the page more than its
    charts (py-spy at 120 visitors), and few visitors press it."""
    job, report, language = result.job, result.report, i18n.current()

    def build() -> str:  # on the server's own thread, outside the page's run: its language given
        with i18n.using(language):
            return notebook.dumps(job, report)

    name = (result.job.function or "script").replace(".", "_")
    st.download_button(
        _("Download as a Jupyter notebook"),
        build,
        f"{name}.ipynb",
        "application/x-ipynb+json",
        key=keys.DOWNLOAD_NOTEBOOK,
        help=_(
            "The code, the call plan as real calls, the tracing count after each "
            "call, the converted code (and a timeit cell when timing was on), "
            "in plain TensorFlow."
        ),
    )


def keep_open_tab(names: list[str], labels: list[str]) -> None:
    """The open tab is held by its label; after a language switch, the same tab in the new one."""
    held = st.session_state.get(keys.RESULT_TAB)
    if held is None or held in labels:
        return
    for name, label in zip(names, labels):
        if held in {i18n.translation(language).pgettext(TAB, name) for language in i18n.LANGUAGES}:
            st.session_state[keys.RESULT_TAB] = label
            return


def render(result: Result, wide: DeltaGenerator | None = None) -> bool:
    """The results column; `wide`: a one-element slot at the page's full width, below both
    columns, where the Code tab draws the source beside its converted code. Returns whether
    the open tab drew into it."""
    report = result.report
    if result.comparison is not None:  # compare mode: both sides, side by side
        compare.render(result)
        return False
    if result.saved and report.trace is not None:
        program = report.trace.program
        st.info(
            (
                _("Saved report {name} of {program}, read-only: Run shows the editor's code instead.")
                if program
                else _(
                    "Saved report {name} of a watched block, read-only: Run shows the editor's code instead."
                )
            ).format(name=code_span(result.saved), program=code_span(program))
        )
    elif result.saved:
        st.info(
            _("Saved report {name}, read-only: Run shows the editor's code instead.").format(
                name=code_span(result.saved)
            )
        )
    if result.cuts:  # a file larger than any run: what of it the page leaves out
        st.warning("\n\n".join(drawn.notes(list(result.cuts))))
    if result.recorded:
        st.caption(
            _(
                "Recorded result of this example (TensorFlow {version} on {device}): press **Run** "
                "for a live run here."
            ).format(version=md(report.tensorflow_version), device=md(report.device))
        )
    else:
        environment_line(report, result.number, saved=bool(result.saved))
    summary(result)
    if not result.saved:  # a saved report has no code of this page to write out
        notebook_download(result)
    claim_checks(result)
    function = pick_function(report)
    views = [
        lambda: code.render(result, function, wide),
        lambda: traces.render(function, report.library_functions, report.module),
        lambda: timing.render(report, function, trace_mode=problems.saved_trace(result)),
        lambda: graph.render(function, result.job.source, trace_mode=problems.saved_trace(result)),
        lambda: console.render(report, function),
        lambda: problems.render(result),
    ]
    names = list(TABS)
    if result.job.export or report.export is not None:
        names.append(EXPORT_TAB)
        views.append(lambda: export.render(result))
    labels = [tab_label(name) for name in names]
    wanted = st.session_state.pop(keys.OPEN_TAB, None)  # an example's own tab, once
    if wanted in names:
        st.session_state[keys.RESULT_TAB] = tab_label(wanted)
    keep_open_tab(names, labels)
    # Only the open tab is drawn (switching tabs reruns): hidden charts, graphs and tables
    # cost the browser about 3 CPU-s per run (bench/load_test.py), and the server its time.
    for key, default in TAB_CONTROLS.items():
        folded.hold(key, default=default)
    tabs = st.tabs(labels, key=keys.RESULT_TAB, on_change="rerun")
    drew_wide = False
    for tab, view in zip(tabs, views):
        if tab.open:
            with tab:
                drew_wide = bool(view()) or drew_wide
    return drew_wide
