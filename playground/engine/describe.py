"""Step 5: what one observed function becomes in the report: its calls and traces, the
AutoGraph-converted code, the graph before and after Grappler, HLO under XLA, and timing.
A failure in any view is a note on that view; the others still come back."""

from __future__ import annotations

import collections
import dataclasses
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..contract import i18n, specs
from ..contract.errors import PlaygroundError
from ..contract.i18n import _
from ..contract.job import FunctionReport, Numbers, Timing
from ..contract.protocol import TimingProgress, as_event
from . import convert, graphs, numbers, timing, xla
from . import device as devices
from .entry import source_function
from .tracing import TrackedFunction, bare_report
from .values import make_args

if TYPE_CHECKING:
    from .execution import Execution


MAX_COSTED_TRACES = 50  # FLOPs per graph: a profile each; a retracing storm keeps its op counts


def describe(run: Execution, tracked: TrackedFunction, retrace_log: list[str]) -> FunctionReport:
    if tracked.maker:  # a library's: its traces and why, not its code, graph or timing
        return dataclasses.replace(
            bare_report(tracked),
            concrete_signatures=tracked.concrete_signatures(),
            retracing_warnings=tracked.warnings_in(retrace_log),
        )
    options, filename = tracked.options, run.job.filename
    code, note, code_lines = convert.converted_code(tracked.python_function, filename)
    graph = measured = None
    compiled = xla.XlaViews()
    notes = [note] if note else []
    if tracked.traces or tracked.tracing_count:
        tracked.concrete_signatures()
        if tracked.traces:
            try:
                graph = graphs.graph_info(tracked.traces[-1], filename, passes=run.job.passes)
            except Exception as e:  # noqa: BLE001 - a failure of ours must not lose the analysis
                notes.append(_("graph inspection failed: {error}").format(error=f"{type(e).__name__}: {e}"))
    if tracked.last_ok_args is None and options.get("jit_compile"):
        notes.append(_("No HLO: no call succeeded, so XLA had nothing to compile."))
    if tracked.last_ok_args is not None:
        args, kwargs = tracked.last_ok_args
        if options.get("jit_compile"):
            compiled = xla.views(tracked.python_function, options, args, kwargs, passes=run.job.passes)
            notes += compiled.notes
        if run.job.timing:
            measured = _time(run, tracked, args, kwargs, notes)
    compared = _numbers(run, tracked, notes) if run.job.numbers and tracked.successes else None
    verdict = None
    if graph is not None and (options.get("jit_compile") or run.job.timing or run.job.numbers):
        jit = bool(options.get("jit_compile"))
        try:
            verdict = graphs.xla_verdict(graph, run.device, (compiled.hlo is not None) if jit else None)
        except Exception as e:  # noqa: BLE001 - a failure of ours must not lose the analysis
            notes.append(_("reading XLA's kernels failed: {error}").format(error=f"{type(e).__name__}: {e}"))
    return FunctionReport(
        name=tracked.name,
        tracing_count=tracked.tracing_count,
        calls=tracked.calls,
        concrete_signatures=tracked.concrete_signatures(),
        converted_code=code,
        graph=graph,
        hlo=compiled.hlo,
        timing=measured,
        conversion_note=i18n.sentences(*notes),
        retracing_warnings=tracked.warnings_in(retrace_log),
        line=_line_of(tracked.python_function, filename),
        global_names=run.global_names.get(tracked, []),
        converted_code_lines=code_lines,
        made_at=tracked.made_at,
        numbers=compared,
        xla=verdict,
        trace_ops=[graphs.op_count(cf) for cf in tracked.traces],
        tracing_s=sum(c.duration_s for c in tracked.calls if c.retraced),
        trace_flops=[graphs.flops(cf) for cf in tracked.traces[:MAX_COSTED_TRACES]],
        hlo_passes=compiled.passes,
        xla_cost=compiled.cost,
    )


def _numbers(run: Execution, tracked: TrackedFunction, notes: list[str]) -> Numbers | None:
    """The successful calls (the first MAX_REMEMBERED) again in each mode, outputs compared."""
    signature = inspect.signature(tracked.python_function)
    labels = {c.index: c.args for c in tracked.calls}
    calls = []
    for index, named, _result in tracked.successes:
        bound = inspect.BoundArguments(signature, collections.OrderedDict(named))
        calls.append((index, labels.get(index, ""), list(bound.args), dict(bound.kwargs)))
    try:
        return numbers.compare(tracked.python_function, tracked.options, calls, run.job.tolerance)
    except Exception as e:  # noqa: BLE001 - a failure of ours must not lose the analysis
        notes.append(_("comparing the numbers failed: {error}").format(error=f"{type(e).__name__}: {e}"))
        return None


def _time(
    run: Execution, tracked: TrackedFunction, args: list, kwargs: dict, notes: list[str]
) -> Timing | None:
    """Eager against graph (and XLA, which timing.measure adds itself), then the size sweep."""
    plain = {k: v for k, v in tracked.options.items() if k != "jit_compile"}
    job = run.job
    try:
        measured = timing.measure(
            tracked.python_function,
            plain,
            args,
            kwargs,
            budget_s=job.timing_budget_s,
            device=run.device,
            progress=lambda mode, done: run.emit(as_event(TimingProgress(tracked.name, mode, done))),
        )
    except Exception as e:  # noqa: BLE001 - a failure of ours must not lose the analysis
        notes.append(_("timing failed: {error}").format(error=f"{type(e).__name__}: {e}"))
        return None
    extra: dict[str, Any] = {"environment": devices.environment(run.device)}
    if job.sweep and run.plan:
        try:
            asked = specs.parse_sweep(job.sweep)
            sweep = _positional(asked, tracked.python_function)
            sized = [(n, *make_args(specs.resize(run.plan[-1], sweep, n), 0)) for n in sweep.sizes]
            extra["sweep"] = timing.sweep(
                tracked.python_function, plain, sized, budget_s=job.timing_budget_s, device=run.device
            )
            extra["sweep_label"] = _("{arg} dim {dim}").format(arg=asked.arg, dim=asked.dim)
        except PlaygroundError as e:
            notes.append(_("size sweep {sweep}: {error}").format(sweep=job.sweep, error=e))
    return dataclasses.replace(measured, **extra)


def _positional(sweep: specs.Sweep, python_function: Callable) -> specs.Sweep:
    """Sweeps name arguments as the user does; calls hold them by position."""
    if isinstance(sweep.arg, str):
        names = list(inspect.signature(python_function).parameters)
        if sweep.arg in names:
            return dataclasses.replace(sweep, arg=names.index(sweep.arg))
    return sweep


def _line_of(python_function: Callable, filename: str) -> int | None:
    code = getattr(source_function(python_function), "__code__", None)
    return code.co_firstlineno if code is not None and code.co_filename == filename else None
