"""Timing tab: per-mode distributions, first call phases, speedup, sweep, environment, export."""

from __future__ import annotations

import csv
import dataclasses
import io
import json

import streamlit as st

from ...contract.i18n import N_, _
from ...contract.job import FunctionReport, Numbers, Report, Timing
from ...contract.reasons import mode_name
from ...reports import tables
from ...reports.figures import distribution_figure, phases_figure, ratio_words
from ...reports.safe_text import markdown_literal as md
from ...reports.tables import mode_rows, modes
from .. import keys, memo
from ..options import TIMING_LABEL
from . import sweep

ENVIRONMENT_LABELS = (
    ("device", N_("Device")),
    ("cpu", "CPU"),
    ("cpu_count", N_("CPU cores")),
    ("tensorflow_version", "TensorFlow"),
    ("python", "Python"),
    ("onednn", "oneDNN"),
    ("intra_op_threads", N_("intra-op threads")),
    ("inter_op_threads", N_("inter-op threads")),
)


def samples_csv(timing: Timing) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["mode", "sample", "seconds"])
    for name, mode in modes(timing).items():
        for i, sample in enumerate(mode.samples_s):
            writer.writerow([name, i, f"{sample:.9g}"])
    return out.getvalue()


def environment(report: Report, timing: Timing) -> dict:
    """The timing's own environment (where it was measured), else the run's."""
    return dict(timing.environment or report.environment)


def device_of(report: Report, timing: Timing) -> str:
    return str(environment(report, timing).get("device") or report.device)


def environment_rows(env: dict) -> list[dict]:
    def shown(key: str, value: object) -> str:
        if key.endswith("_threads") and value == 0:
            return _("0 (TF default: all cores)")
        if isinstance(value, bool):
            return _("on") if value else _("off")
        return str(value)

    known = [(_(label), key) for key, label in ENVIRONMENT_LABELS if key in env]
    other = [(key, key) for key in env if key not in dict(ENVIRONMENT_LABELS)]
    return [{_("setting"): label, _("value"): shown(key, env[key])} for label, key in known + other]


def environment_card(report: Report, timing: Timing) -> None:
    env = environment(report, timing)
    with st.container(border=True):
        st.markdown(
            _("**Environment** · these numbers come from **{device}**").format(
                device=md(device_of(report, timing))
            )
        )
        if env:
            st.dataframe(environment_rows(env), hide_index=True, width="stretch")
        else:
            st.caption(_("The engine sent no environment details for this run."))


def samples_json(report: Report, timing: Timing) -> str:
    return json.dumps(
        {
            "environment": environment(report, timing),
            "device": device_of(report, timing),
            "tensorflow_version": report.tensorflow_version,
            "modes": {
                n: {
                    "median_s": m.median_s,
                    "iqr_s": m.iqr_s,
                    "noisy": m.noisy,
                    "first_call_s": m.first_call_s,
                    "samples_s": m.samples_s,
                    "peak_memory_bytes": m.peak_memory_bytes,
                }
                for n, m in modes(timing).items()
            },
            "sweep": [dataclasses.asdict(p) for p in timing.sweep],
            "sweep_label": timing.sweep_label,
        },
        indent=1,
    )


def range_text(timing: Timing, mode: str) -> str:
    """The quartile range on a line of its own: inside the metric it was cut off mid-value."""
    low_high = timing.speedup_range.get(mode)
    return (
        _("range {low:.2f}–{high:.2f}× (quartiles)").format(low=low_high[0], high=low_high[1])
        if low_high and len(low_high) >= 2
        else ""
    )


def speedups(timing: Timing) -> None:
    # Two to a row: "3.0× faster" is cut in a quarter of the column.
    cols = [*st.columns(2), *st.columns(2)]
    cols[0].metric(
        _("Graph vs eager"),
        ratio_words(timing.speedup_graph),
        help=_(
            "Eager median / graph median; below it the range from the quartiles "
            "of both. Below 1 means graph mode is slower here."
        ),
    )
    if range_text(timing, "graph"):
        cols[0].caption(range_text(timing, "graph"))
    if timing.speedup_xla is not None:
        cols[1].metric(_("XLA vs eager"), ratio_words(timing.speedup_xla))
        if range_text(timing, "xla"):
            cols[1].caption(range_text(timing, "xla"))
    for col, mode in zip(cols[2:], ("graph", "xla")):
        if mode in timing.break_even_calls:
            calls = timing.break_even_calls[mode]
            slower = (timing.speedup_graph if mode == "graph" else timing.speedup_xla or 0) < 1
            col.metric(
                _("{mode} pays back after").format(mode=mode_name(mode)),
                _("{n} calls").format(n=calls) if calls else _("never"),
                help=_("Calls until tracing/compile cost is recovered by faster steady state."),
            )
            if not calls and slower:  # on a line of its own: inside the metric it was cut
                col.caption(_("slower here in steady state"))


@st.fragment
def charts(timing: Timing) -> None:
    """Chart-only controls rerun just this fragment, never the engine."""
    c1, c2 = st.columns(2)
    log = c1.toggle(_("Log axis"), key=keys.TIMING_LOG)  # defaults: TAB_CONTROLS
    points = c2.toggle(_("Show every sample"), key=keys.TIMING_POINTS)
    chart = memo.figure(distribution_figure, timing, log=log, points=points)
    st.plotly_chart(chart, key=keys.TIMING_BOX, width="stretch")


def numbers_section(numbers: Numbers) -> None:
    """Eager against graph against XLA, output by output (--numbers)."""
    summary = md(tables.numbers_summary(numbers))
    off = any(d.verdict != "match" for c in numbers.calls for d in c.diffs)
    (st.warning if off else st.success)(summary)
    st.dataframe(tables.numbers_rows(numbers), hide_index=True, width="stretch")
    for note in numbers.notes:
        st.caption(md(note))


def cost_section(function: FunctionReport) -> None:
    """What each trace costs (ops, FLOPs) and what XLA's compile took, beside the timing."""
    summary = tables.cost_summary(function)
    if not summary:
        return
    with st.expander(_("Cost: ops, FLOPs, tracing and XLA's compile")):
        st.markdown(md(summary))
        st.dataframe(tables.cost_rows(function), hide_index=True, width="stretch")


def render(report: Report, function: FunctionReport | None, trace_mode: bool = False) -> None:
    """trace_mode: a saved trace-mode report, whose program ran once, untimed."""
    if function is not None and function.numbers is not None:
        numbers_section(function.numbers)
    if function is not None:
        cost_section(function)
    timing = function.timing if function else None
    if timing is None and trace_mode:
        st.info(
            _(
                "Trace mode times no calls: it counts traces and the time the calls that traced "
                'took. Run the function here with "{option}" to time eager, graph and XLA.'
            ).format(option=_(TIMING_LABEL))
        )
        return
    if timing is None:
        st.info(
            _('Timing was off for this run. Turn on "{option}" and run again.').format(option=_(TIMING_LABEL))
        )
        return
    device = device_of(report, timing)
    st.info(
        _("Every number below was measured on **{device}** (TensorFlow {version}).").format(
            device=md(device),
            version=md(environment(report, timing).get("tensorflow_version", report.tensorflow_version)),
        )
    )
    speedups(timing)
    for name, mode in modes(timing).items():
        # The engine's own note says it already (in the job's language), on a line "mode: ...".
        engine_flagged = any(
            note.startswith((f"{name}: ", _("{mode}: {note}").format(mode=mode_name(name), note="")))
            for note in timing.notes
        )
        if mode.noisy and not engine_flagged:
            st.warning(
                _(
                    "{mode}: noisy (IQR {iqr} µs > 20% of median {median} µs); rerun or raise the budget."
                ).format(
                    mode=mode_name(name), iqr=f"{mode.iqr_s * 1e6:.1f}", median=f"{mode.median_s * 1e6:.1f}"
                )
            )
    for note in timing.notes:
        st.info(md(note))
    charts(timing)
    st.plotly_chart(memo.figure(phases_figure, timing), key=keys.TIMING_PHASES, width="stretch")
    st.dataframe(mode_rows(timing, device), hide_index=True, width="stretch")
    sweep.render(timing, device)
    environment_card(report, timing)
    c1, c2 = st.columns(2)
    c1.download_button(
        _("Samples as CSV"), samples_csv(timing), "timing.csv", "text/csv", key=keys.DOWNLOAD_CSV
    )
    c2.download_button(
        _("Samples as JSON"),
        samples_json(report, timing),
        "timing.json",
        "application/json",
        key=keys.DOWNLOAD_JSON,
    )
