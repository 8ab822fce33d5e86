"""The compare view: both sides side by side, their differences listed and highlighted in the calls
table, the converted code as a diff of the two, op counts and timing of both on one chart each."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ...contract import reasons
from ...contract.i18n import N_, _
from ...contract.job import CallRecord, FunctionReport, Report
from ...contract.reasons import mode_name
from ...reports import hlo_passes
from ...reports.compare import Comparison, Difference
from ...reports.figures import log_ticks
from ...reports.safe_text import markdown_literal as md
from ...reports.safe_text import plotly_text
from ...reports.tables import modes
from .. import code_diff, keys
from ..state import Result

COLOURS = {"a": "#17becf", "b": "#e377c2"}  # the sides: none of the modes' colours (figures.COLOURS)
HIGHLIGHT = "background-color: rgba(255, 75, 75, 0.18)"


def labels(c: Comparison) -> dict[str, str]:
    return {"a": f"a: {c.side_a}", "b": f"b: {c.side_b}"}


def header(c: Comparison, number: int) -> None:
    versions = (
        c.a.tensorflow_version
        if c.a.tensorflow_version == c.b.tensorflow_version
        else f"{c.a.tensorflow_version} / {c.b.tensorflow_version}"
    )
    st.caption(
        _("Run {number} · TensorFlow {versions} · compare **{spec}** · {a} · {b} · {seconds:.2f} s").format(
            number=number,
            versions=md(versions),
            spec=md(c.spec),
            a=md(labels(c)["a"]),
            b=md(labels(c)["b"]),
            seconds=c.a.duration_s + c.b.duration_s,
        )
    )
    reduced = sorted({r.sandbox.isolation if r.sandbox else "none" for r in (c.a, c.b)} - {"bubblewrap"})
    if reduced:
        st.warning(
            _(
                "Reduced isolation ({level}): not for public hosting. Jobs ran without the "
                "bubblewrap sandbox, so pasted code could reach this machine."
            ).format(level=md(", ".join(reduced)))
        )


def side_summary(name: str, label: str, report: Report, other: Report | None) -> None:
    calls = sum(len(f.calls) for f in report.functions)
    st.markdown(f"**{md(label)}**")
    st.caption(
        _("TensorFlow {version} · device {device} · {seconds:.2f} s").format(
            version=md(report.tensorflow_version), device=md(report.device), seconds=report.duration_s
        )
    )
    c1, c2, c3 = st.columns(3)
    delta = report.tracing_count - other.tracing_count if other is not None else None
    c1.metric(_("Traces"), report.tracing_count, delta=delta or None, delta_color="off")
    c2.metric(_("Calls"), calls)
    from . import status_text  # the package's, imported late: it imports this module

    c3.metric(_("Status"), md(status_text(report.status)))
    if report.status != "ok":
        st.error(f"{md(status_text(report.status))}: {md(report.message)}")


def where(d: Difference) -> str:
    text = d.function or _("the run")
    if d.call is not None:
        text += " · " + _("call {number}").format(number=d.call + 1)
    return text + (f" · {d.detail}" if d.detail else "")


def shown(kind: str, value: object) -> str:
    if value is None:
        return "—"
    if kind == "timing":
        return f"{float(value) * 1e6:.1f} µs"  # type: ignore[arg-type]
    if kind == "reason":  # a trace reason: data, in the reader's words
        return reasons.text(str(value))
    return str(value)


def differences(c: Comparison) -> None:
    if not c.differences:
        st.success(_("No differences: the sides agree on traces, calls, outputs, errors and op counts."))
        return
    st.markdown(_("**{count} difference(s)** between the sides").format(count=len(c.differences)))
    rows = [
        {
            _("kind"): d.kind,
            _("where"): where(d),
            labels(c)["a"]: shown(d.kind, d.a),
            labels(c)["b"]: shown(d.kind, d.b),
        }
        for d in c.differences
    ]
    st.dataframe(rows, hide_index=True, width="stretch")


def pick_function(c: Comparison) -> tuple[str, FunctionReport | None, FunctionReport | None]:
    names = [f.name for f in c.a.functions] + [
        f.name for f in c.b.functions if f.name not in {g.name for g in c.a.functions}
    ]
    if not names:
        return "", None, None
    if len(names) > 1:
        st.selectbox(_("Function"), names, key=keys.COMPARE_FUNCTION)
    chosen = st.session_state.get(keys.COMPARE_FUNCTION, names[0])
    chosen = chosen if chosen in names else names[0]
    return (
        chosen,
        next((f for f in c.a.functions if f.name == chosen), None),
        next((f for f in c.b.functions if f.name == chosen), None),
    )


def call_cells(call: CallRecord | None) -> tuple[str, str, str]:
    """(traced, reason, result) of one side's call."""
    if call is None:
        return _("did not run"), "", ""
    traced = _("traced") if call.retraced else _("raised") if call.error else _("reused graph")
    result = call.output or ""
    if call.error:
        lines = call.error.message.strip().splitlines()
        result = f"{call.error.type}: {lines[0] if lines else ''}"
    return traced, reasons.text(call.reason or ""), result


CELLS = (N_("traced"), N_("reason"), N_("result"))  # the column names of the traces tab


def column(side: str, cell: str) -> str:
    return f"{side} {_(cell)}"


def calls_frame(fa: FunctionReport | None, fb: FunctionReport | None) -> pd.DataFrame:
    count = max(len(fa.calls) if fa else 0, len(fb.calls) if fb else 0)
    rows = []
    for index in range(count):
        ca = fa.calls[index] if fa and index < len(fa.calls) else None
        cb = fb.calls[index] if fb and index < len(fb.calls) else None
        either = ca or cb
        row = {_("call"): index + 1, _("arguments"): either.args if either else ""}
        for name, a, b in zip(CELLS, call_cells(ca), call_cells(cb)):  # each pair side by side
            row.update({column("a", name): a, column("b", name): b})
        rows.append(row)
    return pd.DataFrame(rows)


def highlight(row: pd.Series) -> list[str]:
    """Both cells of a pair that differ between the sides."""
    differing = {
        column(side, name)
        for name in CELLS
        for side in "ab"
        if row.get(column("a", name)) != row.get(column("b", name))
    }
    return [HIGHLIGHT if label in differing else "" for label in row.index]


def tracing_figure(c: Comparison, fa: FunctionReport | None, fb: FunctionReport | None) -> go.Figure:
    figure = go.Figure()
    for side, function in (("a", fa), ("b", fb)):
        if function is None:
            continue
        figure.add_trace(
            go.Scatter(
                x=[call.index + 1 for call in function.calls],
                y=[call.tracing_count for call in function.calls],
                mode="lines+markers",
                line_shape="hv",
                name=plotly_text(labels(c)[side]),
                line=dict(color=COLOURS[side]),
                marker=dict(size=[13 if call.retraced else 7 for call in function.calls]),
                text=[plotly_text(reasons.text(call.reason or "")) for call in function.calls],
                hovertemplate="%{x}: %{y}<br>%{text}<extra></extra>",
            )
        )
    figure.update_layout(
        title=_("Cumulative tracing count, both sides (large mark: traced)"),
        xaxis_title=_("call number"),
        yaxis_title=_("traces so far"),
        xaxis=dict(dtick=1),
        yaxis=dict(rangemode="tozero", dtick=1),
        height=320,
        margin=dict(l=40, r=10, t=50, b=40),
    )
    return figure


def calls_view(c: Comparison, fa: FunctionReport | None, fb: FunctionReport | None) -> None:
    frame = calls_frame(fa, fb)
    if frame.empty:
        st.info(_("No calls ran on either side."))
        return
    st.caption(_("Cells that differ between the sides are highlighted."))
    st.dataframe(frame.style.apply(highlight, axis=1), hide_index=True, width="stretch")
    st.plotly_chart(tracing_figure(c, fa, fb), key=keys.COMPARE_TRACE_CHART, width="stretch")


def code_view(fa: FunctionReport | None, fb: FunctionReport | None) -> None:
    code_a, code_b = (fa.converted_code if fa else None), (fb.converted_code if fb else None)
    if not code_a and not code_b:
        st.info(_("AutoGraph produced no converted code on either side."))
        return
    change = code_diff.between(code_a or "", code_b or "")
    if not change.compared:
        st.info(
            _(
                "AutoGraph's code of the two sides is not compared: it is over {pairs} line pairs long."
            ).format(pairs=f"{code_diff.MAX_PAIRS:,}")
        )
        st.code(code_b or "", language="python")
        return
    if not change.added and not change.removed:
        st.success(_("AutoGraph wrote the same code on both sides."))
        st.code(code_a or "", language="python")
        return
    st.markdown(
        _(
            "AutoGraph's code differs: {added} line(s) only on side b, {removed} only on "
            "side a, {kept} the same."
        ).format(added=change.added, removed=change.removed, kept=change.kept)
    )
    st.code(change.text, language="diff")


def ops_figure(c: Comparison, fa: FunctionReport | None, fb: FunctionReport | None) -> go.Figure:
    stages = [_("as traced"), _("after Grappler")]
    figure = go.Figure()
    for side, function in (("a", fa), ("b", fb)):
        graph = function.graph if function else None
        values = [graph.op_count, graph.op_count_optimized] if graph else [0, 0]
        figure.add_trace(
            go.Bar(
                name=plotly_text(labels(c)[side]), x=stages, y=values, text=values, marker_color=COLOURS[side]
            )
        )
    figure.update_layout(
        barmode="group",
        title=_("Ops in the graph, both sides"),
        yaxis_title=_("ops"),
        height=320,
        margin=dict(l=40, r=10, t=50, b=40),
    )
    return figure


def graph_view(c: Comparison, fa: FunctionReport | None, fb: FunctionReport | None) -> None:
    if not (fa and fa.graph) and not (fb and fb.graph):
        st.info(_("No graph on either side: the function never traced successfully."))
        return
    st.plotly_chart(ops_figure(c, fa, fb), key=keys.COMPARE_OPS_CHART, width="stretch")
    for side, function in (("a", fa), ("b", fb)):
        if function and function.graph and function.graph.note:
            st.caption(f"{md(labels(c)[side])}: {md(function.graph.note)}")
    if fa and fb:
        same_pass_view(fa, fb)


def same_pass_view(fa: FunctionReport, fb: FunctionReport) -> None:
    """One XLA pass on both sides (--passes on each): side a's module after it against b's."""
    pairs = hlo_passes.same_passes(fa.hlo_passes, fb.hlo_passes)
    if not pairs:
        return
    i, j = st.selectbox(
        _("The same XLA pass on both sides"),
        pairs,
        index=len(pairs) - 1,
        key=keys.COMPARE_HLO_PASS,
        format_func=lambda pair: hlo_passes.label(fa.hlo_passes, pair[0]),
    )
    a_name = "a: " + hlo_passes.label(fa.hlo_passes, i)
    b_name = "b: " + hlo_passes.label(fb.hlo_passes, j)
    st.code(
        hlo_passes.diff(fa.hlo_passes[i], fb.hlo_passes[j], a_name, b_name), language="diff", wrap_lines=True
    )


def timing_figure(c: Comparison, fa: FunctionReport | None, fb: FunctionReport | None) -> go.Figure:
    figure, every = go.Figure(), []
    for side, function in (("a", fa), ("b", fb)):
        if function is None or function.timing is None:
            continue
        xs, ys = [], []
        for mode, timing in modes(function.timing).items():
            xs += [mode_name(mode)] * len(timing.samples_s)
            ys += [s * 1e6 for s in timing.samples_s]
        every += [y for y in ys if y > 0]
        figure.add_trace(
            go.Box(
                x=xs,
                y=ys,
                name=plotly_text(labels(c)[side]),
                marker_color=COLOURS[side],
                boxpoints="outliers",
            )
        )
    figure.update_layout(
        boxmode="group",
        title=_("Time per call, both sides (first call excluded)"),
        yaxis_title=_("µs per call"),
        yaxis_type="log",
        height=360,
        margin=dict(l=50, r=10, t=50, b=40),
    )
    if every:  # 1-2-5 ticks with their unit: plotly's own minor labels ("3") read as nonsense
        ticks = log_ticks(every)
        figure.update_yaxes(tickvals=ticks, ticktext=[f"{t:g} µs" for t in ticks])
    return figure


def timing_view(c: Comparison, fa: FunctionReport | None, fb: FunctionReport | None) -> None:
    if not (fa and fa.timing) and not (fb and fb.timing):
        st.info(_('Timing was off for this run. Turn on "Time eager vs graph vs XLA" and run again.'))
        return
    st.plotly_chart(timing_figure(c, fa, fb), key=keys.COMPARE_TIMING_CHART, width="stretch")


def render(result: Result) -> None:
    c = result.comparison
    assert c is not None
    header(c, result.number)
    left, right = st.columns(2)
    with left:
        side_summary("a", labels(c)["a"], c.a, None)
    with right:
        side_summary("b", labels(c)["b"], c.b, c.a)
    differences(c)
    _name, fa, fb = pick_function(c)
    views = [
        lambda: calls_view(c, fa, fb),
        lambda: code_view(fa, fb),
        lambda: graph_view(c, fa, fb),
        lambda: timing_view(c, fa, fb),
    ]
    # Only the open tab is drawn, as in the single-run view (hidden charts cost the browser).
    tabs = st.tabs(
        [_("Calls"), _("Converted code"), _("Graph"), _("Timing")], key=keys.COMPARE_TAB, on_change="rerun"
    )
    for tab, view in zip(tabs, views):
        if tab.open:
            with tab:
                view()
