"""The tables every front-end draws from a Report (the page, the notebook magic): plain rows,
one dict per row keyed by the column's name in the current language; no plotly, no Streamlit."""

from __future__ import annotations

from ..contract import reasons
from ..contract.i18n import _
from ..contract.job import FunctionReport, ModeTiming, Timing
from ..contract.reasons import mode_name


def timeline_rows(function: FunctionReport) -> list[dict]:
    rows = []
    for call in function.calls:
        outcome = call.output or ""
        if call.error:
            handled = _(" (handled by your code)") if call.handled else ""
            last = (call.error.message.splitlines() or [""])[-1]  # raise ValueError() has none
            outcome = f"{call.error.type}{handled}: {last}"
        rows.append(
            {
                _("call"): call.index + 1,
                _("arguments"): call.args,
                _("traced"): _("traced") if call.retraced else _("reused graph"),
                _("reason"): reasons.text(call.reason or ""),
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
