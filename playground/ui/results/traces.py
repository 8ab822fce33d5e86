"""Traces tab: which call traced and why, cumulative tracing count, TF's warning, signatures."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ...i18n import _
from ...job import FunctionReport
from .. import keys


def timeline_rows(function: FunctionReport) -> list[dict]:
    rows = []
    for call in function.calls:
        outcome = call.output or ""
        if call.error:
            handled = _(" (handled by your code)") if call.handled else ""
            outcome = f"{call.error.type}{handled}: {call.error.message.splitlines()[-1]}"
        rows.append({"call": call.index + 1, "arguments": call.args,
                     "traced": "traced" if call.retraced else "reused graph",
                     "reason": call.reason or "", "traces so far": call.tracing_count,
                     "ms": round(call.duration_s * 1000, 2), "result": outcome})
    return rows


def tracing_figure(function: FunctionReport) -> go.Figure:
    calls = function.calls
    x = [c.index + 1 for c in calls]
    y = [c.tracing_count for c in calls]
    figure = go.Figure(go.Scatter(
        x=x, y=y, mode="lines+markers", line_shape="hv", name="tracing count",
        marker=dict(size=[14 if c.retraced else 8 for c in calls],
                    color=["#d62728" if c.retraced else "#1f77b4" for c in calls]),
        text=[(c.reason or "reused graph") for c in calls],
        hovertemplate="call %{x}: %{y} trace(s)<br>%{text}<extra></extra>"))
    figure.update_layout(title="Cumulative tracing count (red: this call traced)",
                         xaxis_title="call number", yaxis_title="traces so far",
                         xaxis=dict(dtick=1), yaxis=dict(rangemode="tozero", dtick=1),
                         height=320, margin=dict(l=40, r=10, t=50, b=40))
    return figure


def render(function: FunctionReport | None) -> None:
    if function is None or not function.calls:
        st.info("No calls ran. Add calls to the plan (one per line) and run again.")
        return
    st.dataframe(timeline_rows(function), hide_index=True, width="stretch")
    st.plotly_chart(tracing_figure(function), key=keys.TRACE_CHART, width="stretch")
    for warning in function.retracing_warnings:
        st.warning(f"TensorFlow's own retracing warning fired:\n\n{warning}")
    st.markdown(f"**Concrete functions** ({len(function.concrete_signatures)}): one graph per signature")
    if function.concrete_signatures:
        st.code("\n".join(function.concrete_signatures), language="text")
