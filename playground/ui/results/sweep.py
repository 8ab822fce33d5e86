"""Size sweep in the Timing tab: time per call against size, log-log, with the retrace counts."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ...contract.i18n import _
from ...contract.job import SweepPoint, Timing
from ...contract.reasons import mode_name
from ...reports.figures import COLOURS, label_log_axis
from ...reports.safe_text import markdown_literal, plotly_text
from .. import keys, memo

MODES = tuple((mode, f"{mode}_s", COLOURS[mode]) for mode in ("eager", "graph", "xla"))


def new_traces(points: list[SweepPoint], attribute: str = "graph_traces") -> list[int | None]:
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
        return _(
            "Graph mode traced again at every new size ({traces} traces for {sizes} sizes): "
            "each size is a new shape. An input_signature with None in this dimension, or "
            "reduce_retracing, lets one graph serve them all."
        ).format(traces=points[-1].graph_traces, sizes=len(points))
    if retraced == 0:
        return _(
            "Graph mode reused one graph for all {sizes} sizes (input_signature or "
            "reduce_retracing generalised the shape)."
        ).format(sizes=len(points))
    return _("Graph mode retraced at {retraced} of {changes} size changes ({traces} traces in all).").format(
        retraced=retraced, changes=len(added) - 1, traces=points[-1].graph_traces
    )


def sweep_figure(timing: Timing, device: str) -> go.Figure:
    points, figure = timing.sweep, go.Figure()
    # Did this size retrace? The first size always traces once; that is not a retrace.
    traces = [bool(n) and i > 0 for i, n in enumerate(new_traces(points))]
    for name, attribute, colour in MODES:
        kept = [(p, t) for p, t in zip(points, traces) if getattr(p, attribute) is not None]
        if not kept:
            continue
        x = [p.size for p, _t in kept]
        y = [getattr(p, attribute) * 1e6 for p, _t in kept]
        if name == "graph":
            text = [
                (_("{n} traces") if p.graph_traces != 1 else _("{n} trace")).format(n=p.graph_traces)
                + (_(" (retraced)") if t else "")
                for p, t in kept
            ]
            figure.add_trace(
                go.Scatter(
                    x=x,
                    y=y,
                    name=mode_name(name),
                    mode="lines+markers+text",
                    text=text,
                    textposition="top center",
                    textfont=dict(size=10, color=colour),
                    line=dict(color=colour),
                    marker=dict(size=[12 if t else 7 for _p, t in kept]),
                    hovertemplate=_("size %{x}: %{y:.3g} µs per call")
                    + "<br>%{text}<extra>"
                    + mode_name(name)
                    + "</extra>",
                )
            )
        else:
            extra: str | list[str] = ""  # one text for every point, or each point's own
            if name == "xla":
                extra = [
                    "<br>xla: " + _("{n} trace(s)").format(n=p.xla_traces) if p.xla_traces is not None else ""
                    for p, _t in kept
                ]
            figure.add_trace(
                go.Scatter(
                    x=x,
                    y=y,
                    name=mode_name(name),
                    mode="lines+markers",
                    line=dict(color=colour),
                    customdata=extra if extra else None,
                    hovertemplate=_("size %{x}: %{y:.3g} µs per call")
                    + ("%{customdata}" if extra else "")
                    + f"<extra>{mode_name(name)}</extra>",
                )
            )
    label = plotly_text(timing.sweep_label or _("size"))
    figure.update_layout(
        title=_("Time per call vs {label} (on {device})").format(label=label, device=plotly_text(device)),
        xaxis_title=_("{label} (log)").format(label=label),
        yaxis_title=_("µs per call (log)"),
        xaxis_type="log",
        yaxis_type="log",
        height=380,
        margin=dict(l=50, r=10, t=50, b=40),
        legend=dict(orientation="h", y=-0.2),
    )
    sizes = [p.size for p in points]
    if sizes:
        figure.update_xaxes(tickvals=sizes, ticktext=[str(s) for s in sizes])
    times = [y for trace in figure.data for y in trace.y if y and y > 0]
    if times:
        label_log_axis(figure, times, "µs")
    return figure


def rows(points: list[SweepPoint]) -> list[dict]:
    def us(value: float | None) -> float | None:
        return None if value is None else round(value * 1e6, 2)

    return [
        {
            _("size"): p.size,
            _("eager µs"): us(p.eager_s),
            _("graph µs"): us(p.graph_s),
            _("XLA µs"): us(p.xla_s),
            _("graph traces"): p.graph_traces,
            _("XLA traces"): p.xla_traces,
        }
        for p in points
    ]


def render(timing: Timing, device: str) -> None:
    if not timing.sweep:
        return
    st.markdown(
        _("**Size sweep** · {label} · measured on **{device}**").format(
            label=markdown_literal(timing.sweep_label or _("size")), device=markdown_literal(device)
        )
    )
    st.plotly_chart(memo.figure(sweep_figure, timing, device), key=keys.TIMING_SWEEP, width="stretch")
    summary = retrace_summary(timing.sweep)
    if summary:
        st.caption(summary)
    st.caption(
        _(
            "Where the lines are flat, Python and dispatch overhead dominate; where they rise "
            "with size, compute does. Missing points: that mode failed at that size."
        )
    )
    with st.expander(_("Sweep numbers")):
        st.dataframe(rows(timing.sweep), hide_index=True, width="stretch")
