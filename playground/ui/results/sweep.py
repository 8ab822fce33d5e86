"""Size sweep in the Timing tab: time per call against size, log-log, with the retrace counts."""
from __future__ import annotations

import math
from typing import Optional

import plotly.graph_objects as go
import streamlit as st

from ...job import SweepPoint, Timing
from .. import keys

MODES = (("eager", "eager_s", "#1f77b4"), ("graph", "graph_s", "#ff7f0e"), ("xla", "xla_s", "#2ca02c"))


def log_ticks(values: list[float]) -> list[float]:
    """1-2-5 ticks spanning the data: plotly's own log labels ("2", "5") read as nonsense."""
    low, high = min(values), max(values)
    ticks, decade = [], 10.0 ** math.floor(math.log10(low))
    while decade <= high * 10:
        ticks += [decade * m for m in (1, 2, 5) if low / 2 <= decade * m <= high * 2]
        decade *= 10
    return ticks


def new_traces(points: list[SweepPoint], attribute: str = "graph_traces") -> list[Optional[int]]:
    """Traces each size added to the one graph instance the sweep reuses (None: not recorded)."""
    out, before = [], 0
    for point in points:
        count = getattr(point, attribute)
        out.append(None if count is None else count - before)
        before = count if count is not None else before
    return out


def retrace_summary(points: list[SweepPoint]) -> str:
    added = [n for n in new_traces(points) if n is not None]
    if not added:
        return ""
    retraced = sum(1 for n in added[1:] if n > 0)
    if len(added) > 1 and retraced == len(added) - 1:
        return (f"Graph mode traced again at every new size ({points[-1].graph_traces} traces for "
                f"{len(points)} sizes): each size is a new shape. An input_signature with None in "
                "this dimension, or reduce_retracing, lets one graph serve them all.")
    if retraced == 0:
        return (f"Graph mode reused one graph for all {len(points)} sizes "
                "(input_signature or reduce_retracing generalised the shape).")
    return (f"Graph mode retraced at {retraced} of {len(added) - 1} size changes "
            f"({points[-1].graph_traces} traces in all).")


def sweep_figure(timing: Timing, device: str) -> go.Figure:
    points, figure = timing.sweep, go.Figure()
    # Did this size retrace? The first size always traces once; that is not a retrace.
    traces = [bool(n) and i > 0 for i, n in enumerate(new_traces(points))]
    for name, attribute, colour in MODES:
        kept = [(p, t) for p, t in zip(points, traces) if getattr(p, attribute) is not None]
        if not kept:
            continue
        x = [p.size for p, _ in kept]
        y = [getattr(p, attribute) * 1e6 for p, _ in kept]
        if name == "graph":
            text = [f"{p.graph_traces} trace{'s' if p.graph_traces != 1 else ''}" +
                    (" (retraced)" if t else "") for p, t in kept]
            figure.add_trace(go.Scatter(
                x=x, y=y, name=name, mode="lines+markers+text", text=text,
                textposition="top center", textfont=dict(size=10, color=colour),
                line=dict(color=colour), marker=dict(size=[12 if t else 7 for _, t in kept]),
                hovertemplate="size %{x}: %{y:.3g} µs per call<br>graph: %{text}<extra>graph</extra>"))
        else:
            extra = ""
            if name == "xla":
                extra = [f"<br>xla: {p.xla_traces} trace(s)" if p.xla_traces is not None else ""
                         for p, _ in kept]
            figure.add_trace(go.Scatter(
                x=x, y=y, name=name, mode="lines+markers", line=dict(color=colour),
                customdata=extra if extra else None,
                hovertemplate="size %{x}: %{y:.3g} µs per call" +
                              ("%{customdata}" if extra else "") + f"<extra>{name}</extra>"))
    label = timing.sweep_label or "size"
    figure.update_layout(title=f"Time per call vs {label} (on {device})",
                         xaxis_title=f"{label} (log)", yaxis_title="µs per call (log)",
                         xaxis_type="log", yaxis_type="log", height=380,
                         margin=dict(l=50, r=10, t=50, b=40), legend=dict(orientation="h", y=-0.2))
    sizes = [p.size for p in points]
    if sizes:
        figure.update_xaxes(tickvals=sizes, ticktext=[str(s) for s in sizes])
    times = [y for trace in figure.data for y in trace.y if y and y > 0]
    if times:
        ticks = log_ticks(times)
        figure.update_yaxes(tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    return figure


def rows(points: list[SweepPoint]) -> list[dict]:
    def us(value: Optional[float]) -> Optional[float]:
        return None if value is None else round(value * 1e6, 2)
    return [{"size": p.size, "eager µs": us(p.eager_s), "graph µs": us(p.graph_s),
             "XLA µs": us(p.xla_s), "graph traces": p.graph_traces, "XLA traces": p.xla_traces}
            for p in points]


def render(timing: Timing, device: str) -> None:
    if not timing.sweep:
        return
    st.markdown(f"**Size sweep** · {timing.sweep_label or 'size'} · measured on **{device}**")
    st.plotly_chart(sweep_figure(timing, device), key=keys.TIMING_SWEEP, width="stretch")
    summary = retrace_summary(timing.sweep)
    if summary:
        st.caption(summary)
    st.caption("Where the lines are flat, Python and dispatch overhead dominate; where they rise "
               "with size, compute does. Missing points: that mode failed at that size.")
    with st.expander("Sweep numbers"):
        st.dataframe(rows(timing.sweep), hide_index=True, width="stretch")
