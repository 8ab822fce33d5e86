"""Traces tab: which call traced and why, cumulative tracing count, TF's warning, signatures."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ...contract import reasons
from ...contract.i18n import _

from ...contract.job import FunctionReport
from .. import keys


def timeline_rows(function: FunctionReport) -> list[dict]:
    rows = []
    for call in function.calls:
        outcome = call.output or ""
        if call.error:
            handled = _(" (handled by your code)") if call.handled else ""
            outcome = f"{call.error.type}{handled}: {call.error.message.splitlines()[-1]}"
        rows.append({_("call"): call.index + 1, _("arguments"): call.args,
                     _("traced"): _("traced") if call.retraced else _("reused graph"),
                     _("reason"): reasons.text(call.reason or ""),
                     _("traces so far"): call.tracing_count,
                     "ms": round(call.duration_s * 1000, 2), _("result"): outcome})
    return rows


def tracing_figure(function: FunctionReport) -> go.Figure:
    calls = function.calls
    x = [c.index + 1 for c in calls]
    y = [c.tracing_count for c in calls]
    figure = go.Figure(go.Scatter(
        x=x, y=y, mode="lines+markers", line_shape="hv", name=_("tracing count"),
        marker=dict(size=[14 if c.retraced else 8 for c in calls],
                    color=["#d62728" if c.retraced else "#1f77b4" for c in calls]),
        text=[(reasons.text(c.reason) if c.reason else _("reused graph")) for c in calls],
        hovertemplate=_("call %{x}: %{y} trace(s)") + "<br>%{text}<extra></extra>"))
    figure.update_layout(title=_("Cumulative tracing count (red: this call traced)"),
                         xaxis_title=_("call number"), yaxis_title=_("traces so far"),
                         xaxis=dict(dtick=1), yaxis=dict(rangemode="tozero", dtick=1),
                         height=320, margin=dict(l=40, r=10, t=50, b=40))
    return figure


def render(function: FunctionReport | None) -> None:
    if function is None or not function.calls:
        st.info(_("No calls ran. Add calls to the plan (one per line) and run again."))
        return
    st.dataframe(timeline_rows(function), hide_index=True, width="stretch")
    st.plotly_chart(tracing_figure(function), key=keys.TRACE_CHART, width="stretch")
    for warning in function.retracing_warnings:
        st.warning(_("TensorFlow's own retracing warning fired:") + f"\n\n{warning}")
    st.markdown(_("**Concrete functions** ({n}): one graph per signature").format(
        n=len(function.concrete_signatures)))
    if function.concrete_signatures:
        st.code("\n".join(function.concrete_signatures), language="text")
