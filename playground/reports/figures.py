"""The charts every front-end draws from a Report (the page, the notebook magic): plotly figures,
in the current language; no Streamlit here. Their tables are in tables.py, which needs no
plotly."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from ..contract import reasons
from ..contract.i18n import N_, _
from ..contract.job import FunctionReport, GraphInfo, Timing
from ..contract.reasons import mode_name
from .safe_text import plotly_text
from .tables import modes

# One colour per mode and per first-call phase, in every chart: blue is eager everywhere.
COLOURS = {
    "eager": "#1f77b4",
    "graph": "#ff7f0e",
    "xla": "#2ca02c",
    "trace_s": "#d62728",  # the tracing chart's red: a call that traced
    "compile_s": "#9467bd",
    "run_s": "#8c564b",
}


def ratio_words(ratio: float) -> str:
    """A speedup as a person says it: "3.1× faster", "4.2× slower" (not "0.24×")."""
    if ratio >= 1:
        return _("{ratio}× faster").format(ratio=f"{ratio:.1f}")
    return _("{ratio}× slower").format(ratio=f"{1 / ratio:.1f}" if ratio > 0 else "∞")


def tracing_figure(function: FunctionReport) -> go.Figure:
    calls = function.calls
    x = [c.index + 1 for c in calls]
    y = [c.tracing_count for c in calls]
    return go.Figure(
        go.Scatter(
            x=x,
            y=y,
            mode="lines+markers",
            line_shape="hv",
            name=_("tracing count"),
            marker=dict(
                size=[14 if c.retraced else 8 for c in calls],
                color=["#d62728" if c.retraced else "#1f77b4" for c in calls],
            ),
            text=[plotly_text(reasons.text(c.reason)) if c.reason else _("reused graph") for c in calls],
            hovertemplate=_("call %{x}: %{y} trace(s)") + "<br>%{text}<extra></extra>",
        ),
        # The layout as one dict, not update_layout(xaxis_title=...): plotly parses each
        # underscore path, 4 of this figure's 5 ms (a chart drawn on every Run).
        layout=dict(
            title=dict(text=_("Cumulative tracing count (red: this call traced)")),
            xaxis=dict(title=dict(text=_("call number")), dtick=1),
            yaxis=dict(title=dict(text=_("traces so far")), rangemode="tozero", dtick=1),
            height=320,
            margin=dict(l=40, r=10, t=50, b=40),
        ),
    )


PHASES = ("trace_s", "compile_s", "run_s")
PHASE_NAMES = {"trace_s": N_("trace"), "compile_s": N_("compile"), "run_s": N_("run")}


def distribution_figure(timing: Timing, *, log: bool, points: bool) -> go.Figure:
    figure, every = go.Figure(), []
    for name, mode in modes(timing).items():
        samples_us = [s * 1e6 for s in mode.samples_s]
        every += samples_us
        figure.add_trace(
            go.Box(
                y=samples_us,
                name=mode_name(name),
                marker_color=COLOURS.get(name),
                boxpoints="all" if points else "outliers",
                jitter=0.4,
                pointpos=0,
            )
        )
    figure.update_layout(
        title=_("Steady-state time per call (first call excluded)"),
        yaxis_title=_("µs per call"),
        yaxis_type="log" if log else "linear",
        showlegend=False,
        height=340,
        margin=dict(l=50, r=10, t=50, b=40),
    )
    if log and every and min(every) > 0:
        label_log_axis(figure, every, "µs")
    return figure


def phases_figure(timing: Timing) -> go.Figure:
    """The first call's phases per mode, side by side on a log axis: XLA's compile (a second)
    and eager's run (tens of µs) both show, each bar labelled with its time."""
    names = list(modes(timing))
    figure, every = go.Figure(), []
    for phase in PHASES:
        values = [timing.phases.get(m, {}).get(phase, 0.0) * 1000 for m in names]
        shown = [v if v > 0 else None for v in values]  # a phase a mode has not: no bar
        every += [v for v in values if v > 0]
        figure.add_trace(
            go.Bar(
                name=_(PHASE_NAMES[phase]),
                x=[mode_name(n) for n in names],
                y=shown,
                marker_color=COLOURS[phase],
                text=[f"{v:.3g} ms" if v else "" for v in shown],
                textposition="outside",
            )
        )
    figure.update_layout(
        barmode="group",
        title=_("First call: trace, compile and run"),
        yaxis_title=_("ms (log)"),
        yaxis_type="log",
        height=340,
        margin=dict(l=50, r=10, t=50, b=40),
    )
    if every:
        label_log_axis(figure, every, "ms")
    return figure


def label_log_axis(figure: go.Figure, values: list[float], unit: str) -> None:
    """The y axis's ticks at 1-2-5 steps over `values`, each with its unit ("200 µs")."""
    ticks = log_ticks(values)
    figure.update_yaxes(tickvals=ticks, ticktext=[f"{t:g} {unit}" for t in ticks])


def log_ticks(values: list[float]) -> list[float]:
    """1-2-5 ticks spanning the data: plotly's own log labels ("2", "5") read as nonsense."""
    low, high = min(values), max(values)
    ticks, decade = [], 10.0 ** math.floor(math.log10(low))
    while decade <= high * 10:
        ticks += [decade * m for m in (1, 2, 5) if low / 2 <= decade * m <= high * 2]
        decade *= 10
    return ticks


def count_axis(largest: int) -> dict:
    """A y axis of whole numbers (an op count has no 0.5), about five ticks, from zero."""
    return dict(rangemode="tozero", dtick=max(1, math.ceil(largest / 5)), tickformat="d")


def op_types_figure(info: GraphInfo) -> go.Figure:
    names = sorted(set(info.op_types) | set(info.op_types_optimized), key=lambda n: -info.op_types.get(n, 0))
    shown = [plotly_text(n) for n in names]  # op types are the report's text: tick labels
    figure = go.Figure(
        [
            go.Bar(
                name=_("traced ({n})").format(n=info.op_count),
                x=shown,
                y=[info.op_types.get(n, 0) for n in names],
            ),
            go.Bar(
                name=_("after Grappler ({n})").format(n=info.op_count_optimized),
                x=shown,
                y=[info.op_types_optimized.get(n, 0) for n in names],
            ),
        ]
    )
    figure.update_layout(
        barmode="group",
        title=_("Ops by type"),
        yaxis_title=_("ops"),
        yaxis=count_axis(max([*info.op_types.values(), *info.op_types_optimized.values(), 1])),
        height=320,
        margin=dict(l=40, r=10, t=50, b=40),
    )
    return figure
