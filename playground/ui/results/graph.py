"""Graph tab: op counts before and after Grappler, its passes, op types, the graph drawn, and
HLO with XLA's passes (hlo.py)."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ...contract import source_info
from ...contract.i18n import _
from ...contract.job import FunctionReport, GraphInfo
from ...reports import tables
from ...reports.figures import count_axis, op_types_figure
from ...reports.safe_text import graph_dot, markdown_literal, plotly_text
from .. import keys, memo
from . import hlo

DRAW_OPEN_BELOW = 40  # larger graphs start collapsed: graphviz gets slow and unreadable


def ops_by_line_figure(info: GraphInfo) -> go.Figure:
    lines = list(info.ops_by_line)
    figure = go.Figure(
        go.Bar(
            x=[_("line {line}").format(line=plotly_text(n)) for n in lines],
            y=[info.ops_by_line[n] for n in lines],
            hovertemplate=_("%{x}: %{y} op(s)") + "<extra></extra>",
        )
    )
    figure.update_layout(
        title=_("Ops by the line of your code that made them"),
        yaxis_title=_("ops"),
        yaxis=count_axis(max([*info.ops_by_line.values(), 1])),
        height=280,
        margin=dict(l=40, r=10, t=50, b=40),
    )
    return figure


def line_caption(info: GraphInfo, line: int) -> str:
    """'line 6 made 24 of the 44 ops'."""
    return _("line {line} made {made} of the {total} ops").format(
        line=line, made=info.ops_by_line.get(str(line), 0), total=info.op_count
    )


def ops_of_line(info: GraphInfo, line: int) -> list[dict]:
    return [
        {_("op"): op.name, _("type"): op.type, _("body"): op.function or _("(top level)")}
        for op in info.ops
        if op.line == line
    ]


def by_source_line(info: GraphInfo, source: str) -> None:
    """The graph filtered by the source line that built it."""
    if not info.ops_by_line:
        return
    text = source.splitlines()
    lines = [int(n) for n in info.ops_by_line if n.isdecimal() and len(n) < 10]  # keys are text
    if not lines:
        return
    st.plotly_chart(memo.figure(ops_by_line_figure, info), key=keys.OPS_BY_LINE_CHART, width="stretch")
    line = st.selectbox(
        _("Ops made by one line of your code"),
        lines,
        key=keys.GRAPH_LINE,
        format_func=lambda n: f"{n}: {text[n - 1].strip()[:70]}" if 0 < n <= len(text) else str(n),
    )
    st.caption(line_caption(info, line))
    st.dataframe(ops_of_line(info, line), hide_index=True, width="stretch")


def decorated_jit(source: str, function: FunctionReport | None) -> bool:
    """Whether the code itself decorates the function with jit_compile=True."""
    if function is None or not source:
        return False
    return any(i.jit_compile for i in source_info.functions(source) if i.name == function.name)


def render(function: FunctionReport | None, source: str = "", trace_mode: bool = False) -> None:
    """trace_mode: a saved trace-mode report, which records traces, not graphs."""
    info = function.graph if function else None
    if info is None:
        if trace_mode:
            st.info(
                _(
                    "Trace mode records each trace and why, not the graphs: run the function here, "
                    "or with `python -m playground analyze`, to see its graph."
                )
            )
        else:
            st.info(_("No graph: the function never traced successfully."))
        return
    findings = tables.xla_findings(function.xla) if function and function.xla else []
    for kind, sentence in findings:  # why XLA fails, first: the tab's other views do not say
        if kind == "error":
            st.error(markdown_literal(sentence))
    c1, c2 = st.columns(2)
    c1.metric(_("Ops as traced"), info.op_count)
    c2.metric(
        _("Ops after Grappler"),
        info.op_count_optimized,
        delta=info.op_count_optimized - info.op_count,
        delta_color="inverse",
    )
    if info.note:
        st.info(markdown_literal(info.note))
    st.plotly_chart(memo.figure(op_types_figure, info), key=keys.OP_TYPES_CHART, width="stretch")
    by_source_line(info, source)
    if info.dot:
        with st.expander(
            _("The graph ({n} ops, last trace)").format(n=info.op_count),
            expanded=info.op_count < DRAW_OPEN_BELOW,
        ):
            dot = graph_dot(info.dot)  # graphviz draws links and images from its attributes
            if dot:
                st.graphviz_chart(dot, width="content")
            else:
                st.caption(
                    _(
                        "The graph is not drawn: its description is not in the form the "
                        "playground's engine writes."
                    )
                )
    if not info.passes:
        st.caption(
            _('Turn on "{option}" to see what each of Grappler\'s passes does.').format(
                option=_(hlo.PASSES_LABEL)
            )
        )
    else:
        with st.expander(_("Grappler's passes, one by one")):
            st.markdown(markdown_literal(tables.passes_summary(info)))
            st.caption(
                _(
                    "Each pass run on its own from the traced graph, and the whole pipeline with that "
                    "pass turned off (TF dumps no graph per pass here: passes are switched in "
                    "Grappler's `RewriterConfig` and the op counts compared)."
                )
            )
            st.dataframe(tables.pass_rows(info), hide_index=True, width="stretch")
    for kind, sentence in findings:
        if kind != "error":
            st.success(markdown_literal(sentence))
    if function:
        hlo.render(function, decorated_jit(source, function))
