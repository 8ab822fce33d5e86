"""The tables every front-end draws from a Report (the page, the notebook magic): plain rows,
one dict per row keyed by the column's name in the current language; no plotly, no Streamlit."""

from __future__ import annotations

from ..contract import reasons
from ..contract.i18n import N_, _
from ..contract.job import FunctionReport, GraphInfo, ModeTiming, ModuleRun, Numbers, Timing, XlaVerdict
from ..contract.reasons import mode_name


def before_plan(module: ModuleRun | None) -> str:
    """Function mode: the module's own calls to the entry, counted apart from the plan's, so
    TF's retracing warning about them agrees with the numbers shown; "" when it made none."""
    if module is None or not (module.calls or module.traces):
        return ""
    return _(
        "Before the plan, the module's own code called {name} {calls} time(s) ({traces} "
        "trace(s)); the plan's calls are counted apart, on a tf.function of their own."
    ).format(name=module.entry, calls=module.calls or 0, traces=module.traces or 0)


def shared_count_note(module: ModuleRun | None, function: FunctionReport) -> str:
    """Why TF's retracing warning during the plan names more calls than the plan made: TF counts
    the calls of one Python function across all its tf.functions, the module's among them."""
    if module is None or not module.calls or not function.retracing_warnings or function.maker:
        return ""
    return _(
        "TensorFlow counts the calls to {name} across all its tf.functions: the numbers in its "
        "warning include the module's {calls} call(s) before the plan."
    ).format(name=module.entry, calls=module.calls)


def wrapped_note(module: ModuleRun | None) -> str:
    """Function mode: what the plan's tf.function is, when the entry is a plain def."""
    if module is None or not module.wrapped:
        return ""
    return _(
        "{name} is a plain def: the playground wrapped it in tf.function to run the plan. "
        "Undecorated, Python would run it eagerly: no traces, and its Python side effects "
        "(print, list appends) on every call."
    ).format(name=module.entry)


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


def calls_made(function: FunctionReport) -> int:
    """Every call, listed or not (a library's calls that reused a trace are only counted)."""
    return len(function.calls) + function.calls_not_listed


def by_maker(functions: list[FunctionReport]) -> list[tuple[str, list[FunctionReport]]]:
    """The library functions grouped by who made them, in the order each maker first made one."""
    groups: dict[str, list[FunctionReport]] = {}
    for function in functions:
        groups.setdefault(function.maker, []).append(function)
    return list(groups.items())


def alike(functions: list[FunctionReport]) -> list[tuple[FunctionReport, int]]:
    """A maker's functions with those that tell nothing apart folded: the same name, no listed
    call (tf.data makes one per dataset), as (the first of them, how many)."""
    out: list[tuple[FunctionReport, int]] = []
    folded: dict[str, int] = {}  # name -> its place in out
    for function in functions:
        at = folded.get(function.name) if not function.calls else None
        if at is not None:
            out[at] = (out[at][0], out[at][1] + 1)
            continue
        if not function.calls:
            folded[function.name] = len(out)
        out.append((function, 1))
    return out


def maker_heading(maker: str, functions: list[FunctionReport]) -> str:
    """'keras: TensorFlowTrainer.make_train_function, from line 12: 2 function(s), 5 trace(s)'."""
    sites = sorted({f.made_site for f in functions if f.made_site})
    lines = sorted({f.made_at for f in functions if f.made_at is not None})
    if len({site.rsplit(":", 1)[0] for site in sites}) > 1:  # several of the user's files
        where = _(", from {sites}").format(sites=", ".join(sites[:5]) + (", ..." if len(sites) > 5 else ""))
    elif lines:
        where = _(", from line {lines}").format(
            lines=", ".join(str(n) for n in lines[:5]) + (", ..." if len(lines) > 5 else "")
        )
    else:
        where = ""
    return _("{maker}{where}: {n} function(s), {traces} trace(s)").format(
        maker=maker, where=where, n=len(functions), traces=sum(f.tracing_count for f in functions)
    )


def timeline_rows(function: FunctionReport) -> list[dict]:
    rows = []
    with_lines = any(call.line is not None for call in function.calls)
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
        if with_lines:  # the user's line that made the call (script mode)
            rows[-1][_("line")] = call.line
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


VERDICTS = {
    "match": N_("match"),
    "differs": N_("differs"),
    "mismatch": N_("shape or dtype differs"),
    "failed": N_("a mode raised"),
}


def numbers_rows(numbers: Numbers) -> list[dict]:
    """One row per call, pair of modes and output: the largest errors and where they are."""
    return [
        {
            _("call"): call.index + 1,
            _("arguments"): call.args,
            _("modes"): _("{a} vs {b}").format(a=mode_name(d.a), b=mode_name(d.b)),
            _("output"): d.output,
            _("verdict"): _(VERDICTS[d.verdict]),
            _("max abs error"): _scientific(d.max_abs),
            _("max rel error"): _scientific(d.max_rel),
            _("at"): d.where,
            _("values there"): f"{d.a_value} / {d.b_value}" if d.a_value or d.b_value else d.note,
        }
        for call in numbers.calls
        for d in call.diffs
    ]


def numbers_summary(numbers: Numbers) -> str:
    """One sentence: every output within the tolerance, or which pair of modes differs most."""
    diffs = [d for call in numbers.calls for d in call.diffs]
    off = [d for d in diffs if d.verdict != "match"]
    tolerance = f"{numbers.tolerance:g}"
    if not off:
        return _("Eager, graph and XLA agree within {tolerance} on all {n} output(s) compared.").format(
            tolerance=tolerance, n=len(diffs)
        )
    worst = max(off, key=lambda d: (d.verdict != "differs", d.max_abs or 0.0))
    return _("{n} of {total} comparison(s) beyond {tolerance}; the largest: {a} vs {b}, {error}.").format(
        n=len(off),
        total=len(diffs),
        tolerance=tolerance,
        a=mode_name(worst.a),
        b=mode_name(worst.b),
        error=(
            _("{abs} at {where}").format(abs=_scientific(worst.max_abs), where=worst.where or "()")
            if worst.verdict == "differs"
            else worst.note or _(VERDICTS[worst.verdict])
        ),
    )


def _scientific(value: float | None) -> str:
    return "" if value is None else f"{value:.3g}"


def xla_findings(verdict: XlaVerdict) -> list[tuple[str, str]]:
    """(kind, sentence) for what XLA can take: kind "error" for what stops it, "ok" otherwise."""
    found = []
    if verdict.unsupported:
        ops = "; ".join(
            _("{op} at line {line}").format(op=op.type, line=op.line) if op.line else op.type
            for op in verdict.unsupported[:12]
        )
        found.append(
            (
                "error",
                _("XLA has no kernel on {device} for {n} op(s) of this graph: {ops}.").format(
                    device=verdict.device, n=len(verdict.unsupported), ops=ops
                ),
            )
        )
    if verdict.compiled is True:
        found.append(("ok", _("XLA compiled this function (jit_compile=True).")))
    elif verdict.compiled is False:
        found.append(("error", _("XLA did not compile this function: with jit_compile=True its calls fail.")))
    elif not verdict.unsupported:
        found.append(
            ("ok", _("XLA has a kernel for every op of this graph: jit_compile=True would take it."))
        )
    return found


def pass_rows(info: GraphInfo) -> list[dict]:
    """Grappler's passes one by one: the ops each leaves on its own, the op types it removed,
    added and rewrote there, and the ops the pipeline leaves without it."""
    return [
        {
            _("pass"): p.name,
            _("ops, alone"): p.op_count_alone,
            _("removed"): type_counts(p.removed),
            _("added"): type_counts(p.added),
            _("rewritten"): type_counts(p.rewritten),
            _("ops, all but this"): p.op_count_without,
        }
        for p in info.passes
    ]


def type_counts(counts: dict[str, int], most: int = 6) -> str:
    """ "MatMul 100, Const 12, +3 more types"."""
    shown = ", ".join(f"{name} {n}" for name, n in list(counts.items())[:most])
    rest = len(counts) - most
    return shown + (_(", +{n} more types").format(n=rest) if rest > 0 else "")


def passes_summary(info: GraphInfo) -> str:
    """Which passes do the work: each that changes the count on its own, with its counts."""
    start = info.op_count_fetched
    if start is None or not info.passes:
        return ""
    working = [p for p in info.passes if p.op_count_alone != start or p.rewritten]
    if not working:
        return _("No Grappler pass changes this graph's {n} ops on its own.").format(n=start)
    alone = "; ".join(
        _("{name} {start} -> {ops}").format(name=p.name, start=start, ops=p.op_count_alone) for p in working
    )
    needed = [p.name for p in working if p.op_count_without != info.op_count_optimized]
    tail = (
        _(" Without {names}, the rest leaves more ops: no other pass does its work.").format(
            names=", ".join(needed)
        )
        if needed
        else _(" Turning any one of them off changes nothing: the others do the same work.")
    )
    return _("Passes that change the graph on their own: {alone}.").format(alone=alone) + tail


def cost_rows(function: FunctionReport) -> list[dict]:
    """Per trace: its signature, the ops of its graph and TensorFlow's FLOPs count for it."""
    flops = function.trace_flops
    return [
        {
            _("trace"): signature,
            _("ops"): function.trace_ops[i] if i < len(function.trace_ops) else None,
            _("FLOPs (TensorFlow's op statistics)"): flops[i] if i < len(flops) else None,
        }
        for i, signature in enumerate(function.concrete_signatures)
    ]


def cost_summary(function: FunctionReport) -> str:
    """The function's cost in one line: tracing, and XLA's compile and buffers where it ran."""
    parts = []
    if function.tracing_count:
        parts.append(
            _("{n} trace(s); the calls that traced took {ms:.1f} ms (tracing and their own run)").format(
                n=function.tracing_count, ms=function.tracing_s * 1000
            )
        )
    flops = function.trace_flops[-1] if function.trace_flops else None
    if flops is not None:
        parts.append(_("{flops:,} FLOPs in the last trace's graph").format(flops=flops))
    cost = function.xla_cost
    if cost is not None:
        parts.append(
            _("XLA's HLO passes took {ms:.1f} ms: {before} -> {after} instructions").format(
                ms=cost.compile_s * 1000, before=cost.instructions, after=cost.instructions_optimized
            )
        )
        if cost.buffer_bytes is not None:
            parts.append(_("XLA's buffers take {size}").format(size=byte_size(cost.buffer_bytes)))
    return "; ".join(parts) + ("." if parts else "")


def byte_size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
