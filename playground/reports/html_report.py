"""A Report as one self-contained HTML file, trace mode's report: no script, no font, no image
to fetch (its Content-Security-Policy refuses any), so it opens offline and shows the same in
any browser. Every string from the report is escaped; the chart is inline SVG."""

from __future__ import annotations

import html

from ..contract import i18n, reasons
from ..contract.i18n import _, _p
from ..contract.job import FunctionReport, Report
from . import failure, tables

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:13px ui-monospace,monospace;white-space:pre-wrap}
.fix{border-left:4px solid #bf8700;background:#fff8c5;padding:.5rem .8rem;margin:.5rem 0}
.error{border-left:4px solid #cf222e;background:#ffebe9;padding:.5rem .8rem}
.muted{color:#59636e}details{margin:.3rem 0}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_BAR, _BAR_GAP, _LABEL_W, _CHART_W = 18, 6, 260, 420


def render(report: Report) -> str:
    """The page, in the current language (i18n.use)."""
    e = html.escape
    parts = [
        "<!doctype html>",
        f'<html lang="{e(i18n.current())}"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>" + e(_("tf.function trace report")) + f"</title><style>{_STYLE}</style></head><body>",
        "<h1>" + e(_("tf.function trace report")) + "</h1>",
        f"<p>{e(report.message)}</p>",
        '<p class="muted">'
        + e(
            _("TensorFlow {version} on {device}; {seconds} s").format(
                version=report.tensorflow_version, device=report.device, seconds=f"{report.duration_s:.1f}"
            )
        )
        + "</p>",
    ]
    parts += [  # why it failed, where we can say, before the error as raised
        f'<div class="error">{e(x.text)}<br><b>{e(x.fix)}</b></div>' for x in failure.explanations(report)
    ]
    if report.error:
        raised = failure.collapse_blank_lines(report.error.traceback or report.error.message)
        parts.append(
            f'<div class="error"><b>{e(report.error.type)}</b>: {e(report.error.headline())}'
            f"<pre>{e(raised)}</pre></div>"
        )
    parts.append("<h2>" + e(_("What to fix")) + "</h2>")
    if report.warnings:
        parts += [f'<div class="fix">{e(w.message)}<br><b>{e(w.fix)}</b></div>' for w in report.warnings]
    else:
        parts.append("<p>" + e(_("Nothing: no function retraced.")) + "</p>")
    everything = report.functions + report.library_functions
    if everything:
        parts += ["<h2>" + e(_("Traces per function")) + "</h2>", _chart(everything)]
    parts += _functions(_("Your functions"), report.functions)
    for maker, made in tables.by_maker(report.library_functions):
        parts += _functions(tables.maker_heading(maker, made), made)
    parts.append("</body></html>")
    return "\n".join(parts)


def _functions(title: str, functions: list[FunctionReport]) -> list[str]:
    e = html.escape
    if not functions:
        return []
    head = [
        _p("a table's column", "function"),
        _("traces"),
        _("calls"),
        _("graphs in cache"),
        _("ops per graph"),
        _("time in traced calls (s)"),
    ]
    rows = [
        "<tr>"
        + f"<td><code>{e(f.name if count == 1 else f'{f.name} ×{count}')}</code></td>"
        + f'<td class="n">{f.tracing_count}</td><td class="n">{tables.calls_made(f)}</td>'
        + f'<td class="n">{len(f.concrete_signatures)}</td>'
        + f"<td>{e(', '.join(str(n) for n in f.trace_ops[:12]) + (' ...' if len(f.trace_ops) > 12 else ''))}</td>"
        + f'<td class="n">{f.tracing_s:.3f}</td></tr>'
        for f, count in tables.alike(functions)  # tf.data's per-dataset functions, folded
    ]
    out = [
        f"<h2>{e(title)}</h2><table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>",
        *rows,
        "</table>",
    ]
    for f in functions:
        traced = [c for c in f.calls if c.retraced or c.error]
        if not traced:
            continue
        out.append(
            f"<details><summary><code>{e(f.name)}</code>: " + e(_("each trace and why")) + "</summary><table>"
        )
        out.append(
            "<tr>"
            + "".join(f"<th>{e(h)}</th>" for h in (_("call"), _("arguments"), _("reason"), _("from")))
            + "</tr>"
        )
        for c in traced:
            why = (
                reasons.text(c.reason or "")
                if c.retraced
                else f"{c.error.type}: {c.error.headline()}"
                if c.error
                else ""
            )
            stack = "<br>".join(e(s) for s in c.stack)
            where = (
                f"<details><summary>{e(c.site)}</summary>{stack}</details>" if len(c.stack) > 1 else e(c.site)
            )
            out.append(
                f'<tr><td class="n">{c.index + 1}</td><td><code>{e(c.args)}</code></td>'
                f"<td>{e(why)}</td><td>{where}</td></tr>"
            )
        out.append("</table></details>")
    return out


def _chart(functions: list[FunctionReport]) -> str:
    """Horizontal bars, one per function with a trace (a library's alike ones summed), longest
    first; at most 30."""
    bars: dict[tuple[str, str], list[FunctionReport]] = {}
    for f in functions:
        if f.tracing_count:
            bars.setdefault((f.maker, f.name), []).append(f)
    shown = sorted(bars.values(), key=lambda alike: -sum(f.tracing_count for f in alike))[:30]
    if not shown:
        return ""
    most = max(sum(f.tracing_count for f in alike) for alike in shown)
    height = len(shown) * (_BAR + _BAR_GAP)
    rows = []
    for i, alike in enumerate(shown):
        f, traces = alike[0], sum(g.tracing_count for g in alike)
        y = i * (_BAR + _BAR_GAP)
        width = max(2, round(traces / most * (_CHART_W - 40)))
        name = f.name if len(f.name) <= 26 else f.name[:25] + "…"
        name += f" ×{len(alike)}" if len(alike) > 1 else ""
        label = name if not f.maker else f"{name} ({f.maker.split(':', 1)[0]})"
        rows.append(
            f'<text x="{_LABEL_W - 6}" y="{y + 13}" text-anchor="end" font-size="12">{html.escape(label)}</text>'
            f'<rect x="{_LABEL_W}" y="{y}" width="{width}" height="{_BAR}" fill="{"#0969da" if not f.maker else "#8c959f"}"/>'
            f'<text x="{_LABEL_W + width + 4}" y="{y + 13}" font-size="12">{traces}</text>'
        )
    return (
        f'<svg width="{_LABEL_W + _CHART_W}" height="{height}" '
        'role="img" aria-label="' + html.escape(_("Traces per function")) + '">' + "".join(rows) + "</svg>"
    )
