"""Renders a Report as the plain-text summary a person wants in a terminal, in the current language.

A report's strings are the worker's (hostile code ran there): what reaches the terminal has no
control characters, so no escape sequence in a message can move the cursor or retitle the window.
"""

from __future__ import annotations

from ..contract import reasons
from ..contract.i18n import _, sentences
from ..contract.job import CallRecord, FunctionReport, Numbers, Report
from ..reports import failure, hlo_passes, tables
from ..reports.safe_text import terminal_text


def _indent(text: str, prefix: str = "      | ") -> list[str]:
    return [prefix + line for line in text.rstrip("\n").splitlines()]


def _call_mark(c: CallRecord) -> str:
    # A call that raised while tracing added no graph, but it did not reuse one either.
    mark = _("TRACED") if c.retraced else _("raised") if c.error else _("cached")
    mark += (
        _(" (raised, handled by the script)")
        if c.handled and c.retraced
        else _(" (handled by the script)")
        if c.handled
        else ""
    )
    return mark


def render_function(f: FunctionReport) -> list[str]:
    lines = [
        _("{name}: {traces} trace(s) in {calls} call(s)").format(
            name=f.name, traces=f.tracing_count, calls=tables.calls_made(f)
        )
    ]
    if f.calls_not_listed:
        lines.append("  " + _("{n} call(s) reused a trace and are not listed").format(n=f.calls_not_listed))
    for c, count in zip(f.calls, tables.traces_per_call(f)):
        head = f"  #{c.index} ({c.args or _('no arguments')})  {_call_mark(c)}"
        if c.reason:
            head += "  " + _("because {reason}").format(reason=reasons.text(c.reason))
        if f.maker and c.line is not None:
            head += "  " + _("(from line {line})").format(line=c.line)
        lines.append(head)
        if count > 1:
            lines.append("      " + tables.several_traces(count))
        lines += _indent(c.stdout) if c.stdout.strip() else []
        if c.error:
            where = _(" at line {line}").format(line=c.error.line) if c.error.line else ""
            message = c.error.headline()[:200]
            lines.append(f"      ! {c.error.type}{where}: {message}")
        elif c.output is not None:
            lines.append(f"      -> {c.output}")
    if f.graph:
        g = f.graph
        lines.append(
            "  "
            + sentences(
                _("graph: {ops} ops, {optimized} after Grappler.").format(
                    ops=g.op_count, optimized=g.op_count_optimized
                ),
                g.note,
            )
        )
    if f.concrete_signatures and not f.maker:  # a library's are in --json
        lines.append("  " + _("concrete signatures:"))
        lines += [f"    {s}" for s in f.concrete_signatures]
    if f.graph and tables.passes_summary(f.graph):
        lines.append("  Grappler: " + tables.passes_summary(f.graph))
    if f.xla:
        lines += ["  XLA: " + sentence for _kind, sentence in tables.xla_findings(f.xla)]
    if f.hlo:
        lines.append("  " + _("HLO: {n} lines (use --json to see it)").format(n=len(f.hlo.splitlines())))
    if f.hlo_passes:
        lines.append("  " + hlo_passes.summary(f))
        lines += [f"    {hlo_passes.label(f.hlo_passes, i)}" for i in range(len(f.hlo_passes))]
    if tables.cost_summary(f):
        lines.append("  " + _("cost: {summary}").format(summary=tables.cost_summary(f)))
    if f.timing:
        lines += _timing_lines(f)
    if f.numbers:
        lines += _numbers_lines(f.numbers)
    if f.conversion_note:
        lines.append("  " + _("note: {note}").format(note=f.conversion_note))
    lines += ["  " + _("TF warning: {warning}").format(warning=w) for w in f.retracing_warnings]
    return lines


def _timing_lines(f: FunctionReport) -> list[str]:
    t = f.timing
    assert t is not None
    spread = " ({:.2f}-{:.2f})".format(*t.speedup_range["graph"]) if "graph" in t.speedup_range else ""
    xla = _(", XLA {xla} us").format(xla=f"{t.xla.median_s * 1e6:.1f}") if t.xla else ""
    lines = [
        "  "
        + _(
            "timing (median per call): eager {eager} us, graph {graph} us{xla}; graph "
            "speedup {speedup}x{spread}"
        ).format(
            eager=f"{t.eager.median_s * 1e6:.1f}",
            graph=f"{t.graph.median_s * 1e6:.1f}",
            xla=xla,
            speedup=f"{t.speedup_graph:.2f}",
            spread=spread,
        )
    ]
    lines += ["    " + _("note: {note}").format(note=n) for n in t.notes]
    if t.sweep:
        lines.append(
            "  "
            + _("size sweep ({label}): size, eager, graph, XLA (us), graph traces").format(
                label=t.sweep_label
            )
        )
        for p in t.sweep:
            cells = [
                f"{v * 1e6:9.1f}" if v is not None else "        -" for v in (p.eager_s, p.graph_s, p.xla_s)
            ]
            lines.append(f"    {p.size:>7} {' '.join(cells)}   {p.graph_traces}")
    return lines


def _numbers_lines(numbers: Numbers) -> list[str]:
    lines = ["  " + _("numbers: {summary}").format(summary=tables.numbers_summary(numbers))]
    for row in tables.numbers_rows(numbers):
        cells = list(row.values())
        lines.append("    " + "  ".join(str(c) for c in cells if c != ""))
    lines += ["    " + _("note: {note}").format(note=n) for n in numbers.notes]
    return lines


def _module_lines(report: Report) -> list[str]:
    """Function mode: what the module's own top-level code printed and its calls to the entry,
    before the plan's calls (which are counted apart), and whether the playground wrapped it."""
    module = report.module
    if module is None:
        return []
    lines = []
    if module.stdout.strip():
        lines += ["", _("output of the module-level code (before the plan):")] + _indent(
            module.stdout, "  | "
        )
    before = tables.before_plan(module)
    lines += ["", before] if before else []
    lines += [
        "  " + _("TF warning (module-level code): {warning}").format(warning=w)
        for w in module.retracing_warnings
    ]
    wrapped = tables.wrapped_note(module)
    lines += ["", _("note: {note}").format(note=wrapped)] if wrapped else []
    return lines


def render(report: Report) -> str:
    isolation = report.sandbox.isolation if report.sandbox else _("none (in process)")
    lines = [
        _("TensorFlow {version} on {device}; isolation: {isolation}").format(
            version=report.tensorflow_version, device=report.device, isolation=isolation
        ),
        _("status: {status}: {message}").format(status=report.status, message=report.message),
    ]
    for explanation in failure.explanations(report):  # why, before the error as raised
        where = _(" (line {line})").format(line=explanation.line) if explanation.line else ""
        lines.append(_("why it failed{where}: {why}").format(where=where, why=explanation.text))
        lines += ["  " + _("fix: {fix}").format(fix=explanation.fix)] if explanation.fix else []
    if report.error:
        where = _(" (line {line})").format(line=report.error.line) if report.error.line else ""
        if report.error.traceback:  # Python's own shape, which ends with the message
            lines.append(_("error{where}: {type}").format(where=where, type=report.error.type))
            lines += _indent(failure.collapse_blank_lines(report.error.traceback), "  ")
        else:
            lines.append(
                _("error{where}: {type}").format(where=where, type=report.error.type)
                + f": {report.error.message}"
            )
    environment = report.environment
    if environment:
        lines.append(
            _(
                "environment: Python {python}, {cpus} CPU(s), TF threads intra-op {intra} / "
                "inter-op {inter}, oneDNN {onednn}"
            ).format(
                python=environment.get("python", "?"),
                cpus=environment.get("cpu_count", "?"),
                intra=environment.get("intra_op_threads", "?"),
                inter=environment.get("inter_op_threads", "?"),
                onednn=_("on") if environment.get("onednn") else _("off"),
            )
        )
    for fallback in report.fallbacks:
        state = _("fallback") if fallback.available else _("unavailable")
        lines.append(
            _("TF {version} {state}: {feature}: {detail}").format(
                version=report.tensorflow_version,
                state=state,
                feature=fallback.feature,
                detail=fallback.detail,
            )
        )
    lines += _module_lines(report)
    for f in report.functions:
        lines.append("")
        lines += render_function(f)
        shared = tables.shared_count_note(report.module, f)
        lines += ["  " + _("note: {note}").format(note=shared)] if shared else []
    if report.library_functions:
        lines += ["", _("made by libraries for your code:")]
        for maker, functions in tables.by_maker(report.library_functions):
            lines.append("  " + tables.maker_heading(maker, functions))
            for f, count in tables.alike(functions):
                if count > 1:
                    lines.append(
                        "    "
                        + _("{name} x{n}: {traces} trace(s) each").format(
                            name=f.name, n=count, traces=f.tracing_count
                        )
                    )
                else:
                    lines += ["    " + line for line in render_function(f)]
    per_call = (report.module.stdout if report.module else "") + "".join(
        c.stdout for f in report.functions for c in f.calls
    )
    if report.stdout.strip() and report.stdout != per_call:
        lines += ["", _("stdout of the whole run:")] + _indent(report.stdout, "  | ")
    if report.export is not None:
        e = report.export
        lines += [
            "",
            _("export: {state}").format(state=_("verified") if e.verified else _("NOT verified"))
            + (f" -> {e.path}" if e.path else ""),
            f"  {e.reason}",
        ]
        for sig in e.signatures:
            state = {True: _("pass"), False: _("FAIL"), None: _("not checked")}[sig.verified]
            lines.append(f"  {sig.key}: {sig.inputs} -> {sig.outputs}  [{state}] {sig.message}")
    if report.warnings:
        lines += ["", _("pitfalls:")]
        for w in report.warnings:
            lines.append(
                "  " + _("line {line} [{code}] {message}").format(line=w.line, code=w.code, message=w.message)
            )
            lines.append("      " + _("fix: {fix}").format(fix=w.fix))
    return terminal_text("\n".join(lines))
