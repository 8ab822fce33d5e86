"""The tables every front-end draws from a Report (the page, the notebook magic): plain rows,
one dict per row keyed by the column's name in the current language; no plotly, no Streamlit."""

from __future__ import annotations

from ..contract import reasons
from ..contract.i18n import _
from ..contract.job import FunctionReport, ModeTiming, Timing
from ..contract.reasons import mode_name


def traces_per_call(function: FunctionReport) -> list[int]:
    """How many traces each call made: TF's count after it, less the count before."""
    counts, before = [], 0
    for call in function.calls:
        counts.append(max(call.tracing_count - before, 0))
        before = max(before, call.tracing_count)
    return counts


def several_traces(count: int) -> str:
    """Why one call traced more than once, in words (Keras's first call does)."""
    return _(
        "traced {n} times in this one call: the first trace created variables (a Keras model "
        "builds its weights on its first call, an optimizer its slots), and TensorFlow traced "
        "again for a graph that only uses them"
    ).format(n=count)


def timeline_rows(function: FunctionReport) -> list[dict]:
    rows = []
    for call, count in zip(function.calls, traces_per_call(function)):
        outcome = call.output or ""
        if call.error:
            handled = _(" (handled by your code)") if call.handled else ""
            last = call.error.headline()  # raise ValueError() has none: ""
            outcome = f"{call.error.type}{handled}: {last}"
        reason = reasons.text(call.reason or "")
        if count > 1:
            reason = "; ".join(part for part in (reason, several_traces(count)) if part)
        rows.append(
            {
                _("call"): call.index + 1,
                _("arguments"): call.args,
                _("traced"): (
                    _("traced {n} times").format(n=count)
                    if count > 1
                    else _("traced")
                    if call.retraced
                    else _("reused graph")
                ),
                _("reason"): reason,
                _("traces so far"): call.tracing_count,
                "ms": round(call.duration_s * 1000, 2),
                _("result"): outcome,
            }
        )
    return rows


def modes(timing: Timing) -> dict[str, ModeTiming]:
    found = {"eager": timing.eager, "graph": timing.graph}
    if timing.xla is not None:
        found["xla"] = timing.xla
    return found


def mode_rows(timing: Timing, device: str) -> list[dict]:
    rows = [
        {
            _("mode"): mode_name(n),
            _("device"): device,
            _("median µs"): round(m.median_s * 1e6, 2),
            _("IQR µs"): round(m.iqr_s * 1e6, 2),
            _("first call ms"): round(m.first_call_s * 1000, 3),
            _("samples"): len(m.samples_s),
            _("noisy"): m.noisy,
        }
        for n, m in modes(timing).items()
    ]
    if any(m.peak_memory_bytes is not None for m in modes(timing).values()):
        for row, m in zip(rows, modes(timing).values()):  # GPU only: get_memory_info's peak
            row[_("peak GPU memory MiB")] = (
                None if m.peak_memory_bytes is None else round(m.peak_memory_bytes / 2**20, 2)
            )
    return rows
