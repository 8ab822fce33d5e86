"""Graph tab: op counts before and after Grappler, op types, the graph drawn, and HLO text."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ...job import FunctionReport, GraphInfo
from .. import keys

DRAW_OPEN_BELOW = 40  # larger graphs start collapsed: graphviz gets slow and unreadable


def op_types_figure(info: GraphInfo) -> go.Figure:
    names = sorted(set(info.op_types) | set(info.op_types_optimized),
                   key=lambda n: -info.op_types.get(n, 0))
    figure = go.Figure([
        go.Bar(name=f"traced ({info.op_count})", x=names, y=[info.op_types.get(n, 0) for n in names]),
        go.Bar(name=f"after Grappler ({info.op_count_optimized})", x=names,
               y=[info.op_types_optimized.get(n, 0) for n in names]),
    ])
    figure.update_layout(barmode="group", title="Ops by type", yaxis_title="ops", height=320,
                         margin=dict(l=40, r=10, t=50, b=40))
    return figure


def render(function: FunctionReport | None) -> None:
    info = function.graph if function else None
    if info is None:
        st.info("No graph: the function never traced successfully.")
        return
    c1, c2 = st.columns(2)
    c1.metric("Ops as traced", info.op_count)
    c2.metric("Ops after Grappler", info.op_count_optimized,
              delta=info.op_count_optimized - info.op_count, delta_color="inverse")
    if info.note:
        st.info(info.note)
    st.plotly_chart(op_types_figure(info), key=keys.OP_TYPES_CHART, width="stretch")
    if info.dot:
        with st.expander(f"The graph ({info.op_count} ops, last trace)",
                         expanded=info.op_count < DRAW_OPEN_BELOW):
            st.graphviz_chart(info.dot, width="content")
    if function and function.hlo:
        with st.expander("XLA HLO (jit_compile=True)"):
            st.code(function.hlo, language="text")
    elif function:
        st.caption("Turn on jit_compile to see the XLA HLO.")
