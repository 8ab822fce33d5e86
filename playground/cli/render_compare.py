"""Renders a Comparison as text: each side's key facts in two columns, then the differences;
without control characters (the reports' strings are the workers', cli/render_text.py)."""

from __future__ import annotations

from typing import Any

from ..contract import reasons
from ..contract.i18n import _
from ..contract.job import CallRecord, FunctionReport, Report
from ..reports.compare import Comparison, Difference
from ..reports.safe_text import terminal_text

WIDTH = 46  # one side's column; longer cells end in "…"


def _cell(text: str) -> str:
    text = " ".join(terminal_text(text).split())  # controls first: the width counts what shows
    return text if len(text) <= WIDTH - 2 else text[: WIDTH - 3] + "…"


def _row(label: str, a: str, b: str) -> str:
    return f"  {label:<26}{_cell(a):<{WIDTH}}{_cell(b)}".rstrip()


def call_cell(call: CallRecord | None) -> str:
    if call is None:
        return _("did not run")
    if call.error is not None:
        return _("raised {error}").format(error=call.error.type)
    if call.retraced:
        return (
            _("TRACED because {reason}").format(reason=reasons.text(call.reason))
            if call.reason
            else _("TRACED")
        )
    return _("cached")


def side_header(name: str, side: str, report: Report) -> list[str]:
    isolation = report.sandbox.isolation if report.sandbox else _("none (in process)")
    lines = [
        _("{name}: {side} · TensorFlow {version} on {device}; isolation: {isolation}").format(
            name=name, side=side, version=report.tensorflow_version, device=report.device, isolation=isolation
        ),
        _("   status: {status}: {message}").format(status=report.status, message=report.message),
    ]
    if report.error is not None:
        where = _(" (line {line})").format(line=report.error.line) if report.error.line else ""
        last = report.error.message.strip().splitlines()[-1:] or [""]
        lines.append(
            _("   error{where}: {type}: {message}").format(
                where=where, type=report.error.type, message=last[0][:200]
            )
        )
    return lines


def _ops(function: FunctionReport | None) -> str:
    if function is None or function.graph is None:
        return "-"
    return f"{function.graph.op_count} / {function.graph.op_count_optimized}"


def _median(function: FunctionReport | None, mode: str) -> str:
    timing = function.timing if function else None
    chosen = getattr(timing, mode, None) if timing else None
    return f"{chosen.median_s * 1e6:.1f} us" if chosen is not None else "-"


def function_rows(name: str, fa: FunctionReport | None, fb: FunctionReport | None) -> list[str]:
    lines = [_("{name}: traces, calls, graph and timing on each side").format(name=name)]
    lines.append(
        _row(_("traces"), str(fa.tracing_count) if fa else "-", str(fb.tracing_count) if fb else "-")
    )
    count = max(len(fa.calls) if fa else 0, len(fb.calls) if fb else 0)
    for index in range(count):
        ca = fa.calls[index] if fa and index < len(fa.calls) else None
        cb = fb.calls[index] if fb and index < len(fb.calls) else None
        either = ca or cb
        args = either.args if either else ""
        lines.append(_row(f"#{index} ({args or _('no arguments')})", call_cell(ca), call_cell(cb)))
    lines.append(_row(_("ops (traced / Grappler)"), _ops(fa), _ops(fb)))
    if (fa and fa.timing) or (fb and fb.timing):
        for mode in ("eager", "graph", "xla"):
            lines.append(
                _row(_("median per call, {mode}").format(mode=mode), _median(fa, mode), _median(fb, mode))
            )
    return lines


def value_text(kind: str, value: Any) -> str:
    if value is None:
        return _("none")
    if kind == "timing":
        return f"{value * 1e6:.1f} us"
    if kind == "reason":  # a trace reason: data, in the reader's words (playground/contract/reasons.py)
        return repr(reasons.text(value))
    return repr(value) if isinstance(value, str) else str(value)


def difference_line(d: Difference) -> str:
    where = d.function or _("the run")
    if d.call is not None:
        where += _(" call #{index}").format(index=d.call)
    if d.detail:
        where += f" ({d.detail})"
    line = _("{kind:<14} {where}: a {a}, b {b}").format(
        kind=d.kind, where=where, a=value_text(d.kind, d.a), b=value_text(d.kind, d.b)
    )
    if d.kind == "timing" and d.a and d.b:
        line += _(" (b/a {ratio:.2f}x)").format(ratio=d.b / d.a)
    return line


def render(comparison: Comparison) -> str:
    c = comparison
    lines = [
        _("compare {spec}: a {side_a}, b {side_b}").format(spec=c.spec, side_a=c.side_a, side_b=c.side_b),
        "",
    ]
    lines += side_header("a", c.side_a, c.a) + side_header("b", c.side_b, c.b)
    names = [f.name for f in c.a.functions]
    names += [f.name for f in c.b.functions if f.name not in names]
    for name in names:
        fa = next((f for f in c.a.functions if f.name == name), None)
        fb = next((f for f in c.b.functions if f.name == name), None)
        rows = function_rows(name, fa, fb)
        lines += ["", rows[0], _row("", "a: " + c.side_a, "b: " + c.side_b)] + rows[1:]
    lines.append("")
    if not c.differences:
        lines.append(_("differences: none (the sides agree on traces, calls, outputs, errors and op counts)"))
    else:
        lines.append(_("differences ({count}):").format(count=len(c.differences)))
        lines += ["  " + difference_line(d) for d in c.differences]
    return terminal_text("\n".join(lines))
