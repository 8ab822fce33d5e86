"""Renders a Report as the plain-text summary a person wants in a terminal."""
from __future__ import annotations

from .i18n import _
from .job import FunctionReport, Report


def _indent(text: str, prefix: str = "      | ") -> list[str]:
    return [prefix + line for line in text.rstrip("\n").splitlines()]


def render_function(f: FunctionReport) -> list[str]:
    lines = [f"{f.name}: {f.tracing_count} trace(s) in {len(f.calls)} call(s)"]
    for c in f.calls:
        # A call that raised while tracing added no graph, but it did not reuse one either.
        mark = "TRACED" if c.retraced else "raised" if c.error else "cached"
        mark += _(" (raised, handled by the script)") if c.handled and c.retraced else \
            _(" (handled by the script)") if c.handled else ""
        head = f"  #{c.index} ({c.args or 'no arguments'})  {mark}"
        if c.reason:
            head += f"  because {c.reason}"
        lines.append(head)
        lines += _indent(c.stdout) if c.stdout.strip() else []
        if c.error:
            where = f" at line {c.error.line}" if c.error.line else ""
            message = c.error.message.splitlines()[-1][:200] if c.error.message else ""
            lines.append(f"      ! {c.error.type}{where}: {message}")
        elif c.output is not None:
            lines.append(f"      -> {c.output}")
    if f.graph:
        g = f.graph
        lines.append(f"  graph: {g.op_count} ops, {g.op_count_optimized} after Grappler. {g.note}")
    if f.concrete_signatures:
        lines.append("  concrete signatures:")
        lines += [f"    {s}" for s in f.concrete_signatures]
    if f.hlo:
        lines.append(f"  HLO: {len(f.hlo.splitlines())} lines (use --json to see it)")
    if f.timing:
        t = f.timing
        lines.append(f"  timing (median per call): eager {t.eager.median_s * 1e6:.1f} us, "
                     f"graph {t.graph.median_s * 1e6:.1f} us"
                     + (f", XLA {t.xla.median_s * 1e6:.1f} us" if t.xla else "")
                     + f"; graph speedup {t.speedup_graph:.2f}x"
                     + (" ({:.2f}-{:.2f})".format(*t.speedup_range["graph"])
                        if "graph" in t.speedup_range else ""))
        lines += [f"    note: {n}" for n in t.notes]
        if t.sweep:
            lines.append(f"  size sweep ({t.sweep_label}): size, eager, graph, XLA (us), graph traces")
            for p in t.sweep:
                cells = [f"{v * 1e6:9.1f}" if v is not None else "        -"
                         for v in (p.eager_s, p.graph_s, p.xla_s)]
                lines.append(f"    {p.size:>7} {' '.join(cells)}   {p.graph_traces}")
    if f.conversion_note:
        lines.append(f"  note: {f.conversion_note}")
    lines += [f"  TF warning: {w}" for w in f.retracing_warnings]
    return lines


def render(report: Report) -> str:
    isolation = report.sandbox.isolation if report.sandbox else "none (in process)"
    lines = [f"TensorFlow {report.tensorflow_version} on {report.device}; isolation: {isolation}",
             f"status: {report.status}: {report.message}"]
    if report.error:
        where = f" (line {report.error.line})" if report.error.line else ""
        if report.error.traceback:   # Python's own shape, which ends with the message
            lines.append(f"error{where}: {report.error.type}")
            lines += _indent(report.error.traceback, "  ")
        else:
            lines.append(f"error{where}: {report.error.type}: {report.error.message}")
    environment = report.environment
    if environment:
        lines.append(_("environment: Python {python}, {cpus} CPU(s), TF threads intra-op {intra} / "
                       "inter-op {inter}, oneDNN {onednn}").format(
            python=environment.get("python", "?"), cpus=environment.get("cpu_count", "?"),
            intra=environment.get("intra_op_threads", "?"),
            inter=environment.get("inter_op_threads", "?"),
            onednn=_("on") if environment.get("onednn") else _("off")))
    for fallback in report.fallbacks:
        state = _("fallback") if fallback.available else _("unavailable")
        lines.append(_("TF {version} {state}: {feature}: {detail}").format(
            version=report.tensorflow_version, state=state, feature=fallback.feature,
            detail=fallback.detail))
    for f in report.functions:
        lines.append("")
        lines += render_function(f)
    per_call = "".join(c.stdout for f in report.functions for c in f.calls)
    if report.stdout.strip() and report.stdout != per_call:
        lines += ["", "stdout of the whole run:"] + _indent(report.stdout, "  | ")
    if report.export is not None:
        e = report.export
        lines += ["", f"export: {'verified' if e.verified else 'NOT verified'}"
                  + (f" -> {e.path}" if e.path else ""), f"  {e.reason}"]
        for sig in e.signatures:
            state = {True: "pass", False: "FAIL", None: "not checked"}[sig.verified]
            lines.append(f"  {sig.key}: {sig.inputs} -> {sig.outputs}  [{state}] {sig.message}")
    if report.warnings:
        lines += ["", "pitfalls:"]
        for w in report.warnings:
            lines.append(f"  line {w.line} [{w.code}] {w.message}")
            lines.append(f"      fix: {w.fix}")
    return "\n".join(lines)
