"""Makes the planned calls on a tf.function and records, per call, whether it traced and why.

TF has no API for why a call retraced. Each trace's function_type holds the TraceType it was
traced for (TensorSpec(shape=(3,)), Literal[1], ...); the reason diffs the new call's types
(trace_type.from_value) against the closest earlier trace, and notes when reduce_retracing
generalised the new trace (e.g. (3,) then (5,) traced as (None,)).
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

import tensorflow as tf
from tensorflow.core.function import trace_type

from ..contract.job import CallRecord, ErrorInfo, FunctionReport
from ..contract.protocol import CallFinished, CallStarted, OnEvent, as_event
from . import compat, makers
from .capture import NoCapture, OutputCapture
from .entry import source_function
from .source import error_info
from .values import label_of, summarize


class TrackedFunction:
    """One tf.function under observation, with the record of every call it received."""

    def __init__(
        self,
        fn: Any,
        name: str,
        python_function: Callable,
        *,
        capture: OutputCapture | NoCapture,
        filename: str,
        emit: OnEvent | None = None,
        options: dict | None = None,
        maker: str = "",
        made_at: int | None = None,
        made_site: str = "",
        users: makers.UserFiles | None = None,
        quiet: bool = False,
    ) -> None:
        self.fn = fn
        self.name = name
        self.python_function = python_function
        self.options = options or {}  # the tf.function options it was built with
        self.capture = capture
        self.filename = filename
        self.emit = emit or (lambda event: None)
        self.calls: list[CallRecord] = []
        self.traces: list[Any] = []  # concrete functions, in the order they were traced
        self.last_ok_args: tuple[list, dict] | None = None
        self.successes: list[tuple[int, dict, Any]] = []  # (index, args by name, result)
        self.maker, self.made_at, self.made_site = maker, made_at, made_site
        # Quiet (a library's function, or trace mode's every function): only the calls that
        # traced or raised are listed, the others counted, so a 10,000-step fit stays a few
        # records and costs each call two counter reads.
        self.quiet = quiet or bool(maker)
        self.calls_not_listed = 0
        self.users = users or makers.UserFiles.one(filename)
        self.count_traces = fn.experimental_get_tracing_count  # bound once: read twice a call

    @property
    def tracing_count(self) -> int:
        return int(self.count_traces())

    def call(self, args: list, kwargs: dict, label: str) -> None:
        """Entry mode: makes one planned call; what it raises is recorded on the call."""
        pending = self.begin(args, kwargs, label)
        try:
            result = self.fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the user's code raised: record it on this call
            self.finish(pending, error=e)
        else:
            self.finish(pending, result=result)

    def begin(self, args: list, kwargs: dict, label: str | None = None) -> Pending:
        """label: the call as written; None, it is made from the arguments when recorded."""
        index = len(self.calls) + self.calls_not_listed  # the call's number among all of them
        if not self.quiet:  # the live progress of the user's own calls
            label = label if label is not None else call_label(args, kwargs)
            self.emit(as_event(CallStarted(self.name, index, label)))
        # A quiet function's output is never read: no flush and stat of the capture per call.
        offset = 0 if self.quiet else self.capture.offset()
        return Pending(index, label, args, kwargs, offset, self.tracing_count, time.perf_counter())

    def finish(
        self,
        pending: Pending,
        result: Any = None,
        error: BaseException | None = None,
        caller: FrameType | None = None,
    ) -> None:
        """Records the call; never raises, so observing a call cannot change its outcome.
        caller: the frame that made the call, for the user's line."""
        duration = time.perf_counter() - pending.started
        try:
            if self.quiet and error is None and self.tracing_count == pending.tracing_count:
                self.calls_not_listed += 1
                return
            self._record(pending, result, error, duration, caller)
        except Exception:  # noqa: BLE001 - a failure of ours must not become the user's
            self.calls.append(
                CallRecord(
                    index=pending.index,
                    args=pending.label or "...",
                    retraced=False,
                    reason=None,
                    stdout="",
                    output=None,
                    duration_s=duration,
                )
            )

    def _record(
        self, pending: Pending, result: Any, error: BaseException | None, duration: float, caller: Any
    ) -> None:
        args, kwargs, index = pending.args, pending.kwargs, pending.index
        label = pending.label if pending.label is not None else call_label(args, kwargs)
        output, info = None, None
        if error is not None:
            info = error_info(error, self.filename)
        elif not self.quiet:  # its result for the report, its arguments for the views
            output = summarize(result)
            self.last_ok_args = (args, kwargs)
            self._remember(index, args, kwargs, result)
        after = self.tracing_count
        retraced = after > pending.tracing_count
        reason = self._reason(args, kwargs) if retraced else None
        line, site, stack = makers.call_site(caller, self.users)
        record = CallRecord(
            index=index,
            args=label,
            retraced=retraced,
            reason=reason,
            stdout="" if self.quiet else self.capture.text(pending.offset),
            output=output,
            error=info,
            tracing_count=after,
            duration_s=duration,
            line=line,
            site=site,
            stack=stack if retraced or info else [],
        )
        self.calls.append(record)
        if not self.quiet:
            self.emit(
                as_event(
                    CallFinished(self.name, index, retraced, reason, after, info.message if info else None)
                )
            )

    def _remember(self, index: int, args: list, kwargs: dict, result: Any) -> None:
        """Keeps a few successful calls by parameter name, for the SavedModel reload check."""
        if len(self.successes) >= 8:
            return
        try:
            bound = inspect.signature(self.python_function).bind(*args, **kwargs)
        except (TypeError, ValueError):
            return
        self.successes.append((index, dict(bound.arguments), result))

    def mark_handled(self, unhandled_index: int | None = None) -> None:
        """Script mode, after the script: every call that raised was handled by the user's code,
        except the one whose exception ended the script."""
        self.calls = [
            dataclasses.replace(c, handled=c.index != unhandled_index) if c.error is not None else c
            for c in self.calls
        ]

    def record_refused(self, label: str, message: str) -> None:
        """A planned call that cannot bind to the function's parameters; TF is not called."""
        self.calls.append(
            CallRecord(
                index=len(self.calls),
                args=label,
                retraced=False,
                reason=None,
                stdout="",
                output=None,
                error=ErrorInfo("TypeError", message),
                tracing_count=self.tracing_count,
            )
        )

    def warnings_in(self, retrace_log: list[str]) -> list[str]:
        """TF's retracing warnings that name this function (by its Python function's
        qualified name, or by its own name: a library's is Keras's `multi_step_on_iterator`)."""
        name = getattr(source_function(self.python_function), "__qualname__", self.name)
        return [m for m in retrace_log if f"<function {name} at" in m or self.name in m]

    def concrete_signatures(self) -> list[str]:
        self._refresh_traces()
        return [f"{self.name}{compat.signature_text(cf)}" for cf in self.traces]

    def _refresh_traces(self) -> list[Any]:
        """Appends traces made since the last look; returns the new ones."""
        # The cache itself: _list_all_concrete_functions() would trace an input_signature.
        cached = compat.concrete_functions(self.fn)
        if cached is None:
            return []
        known = {id(cf) for cf in self.traces}
        new = [cf for cf in cached if id(cf) not in known]
        self.traces.extend(new)
        return new

    def _reason(self, args: list, kwargs: dict) -> str:
        earlier = list(self.traces)
        new = self._refresh_traces()
        traced = constraints(new[-1]) if new else {}
        return why_traced(earlier, self._observed(args, kwargs) or traced, traced)

    def _observed(self, args: list, kwargs: dict) -> dict[str, Any]:
        try:
            bound = inspect.signature(self.python_function).bind(*args, **kwargs)
            return {name: trace_type.from_value(v) for name, v in bound.arguments.items()}
        except Exception:  # noqa: BLE001 - *args functions, odd signatures: fall back to the traced types
            return {}


def bare_report(tracked: TrackedFunction, global_names: list[str] | None = None) -> FunctionReport:
    """A function of a run that stopped early, or whose views failed: its calls and trace
    count, who made it, no views."""
    return FunctionReport(
        name=tracked.name,
        tracing_count=tracked.tracing_count,
        calls=tracked.calls,
        concrete_signatures=[],
        converted_code=None,
        graph=None,
        hlo=None,
        timing=None,
        global_names=global_names or [],
        maker=tracked.maker,
        made_at=tracked.made_at,
        made_site=tracked.made_site,
        calls_not_listed=tracked.calls_not_listed,
    )


def call_label(args: list | tuple, kwargs: dict) -> str:
    """The call as the report writes it: "float32[3], n=2"."""
    try:
        return ", ".join([label_of(a) for a in args] + [f"{k}={label_of(v)}" for k, v in kwargs.items()])
    except Exception:  # noqa: BLE001 - a user's __repr__ may raise
        return "..."


@dataclass(frozen=True)
class Pending:
    """A call under way: what it was given, and the output offset and count before it."""

    index: int
    label: str | None
    args: list
    kwargs: dict
    offset: int
    tracing_count: int
    started: float


def why_traced(earlier: list[Any], observed: dict[str, Any], traced: dict[str, Any]) -> str:
    """Why a call traced: what changed against the closest earlier trace (each an argument's
    dtype, shape, Python value or kind). `observed` holds the call's types by parameter name,
    `traced` those of the trace it made (they differ where reduce_retracing generalised)."""
    if not earlier:
        return "first call"
    best: list[str] | None = None
    for cf in reversed(earlier):  # on a tie, the most recent trace is the closest
        old = constraints(cf)
        diffs = [
            _describe(name, old[name], t, traced.get(name))
            for name, t in observed.items()
            if name in old and not _fits(t, old[name])
        ]
        diffs += [f"{name}: new argument" for name in observed if name not in old]
        if best is None or _weight(diffs) < _weight(best):
            best = diffs
    if best:
        return "; ".join(best)
    return (
        "no argument changed: TF traced again for another reason "
        "(e.g. a variable was created on the first trace, or a captured value changed)"
    )


def _weight(diffs: list[str]) -> int:
    """How far a trace is from the call: each changed dtype, shape or value counts once."""
    return sum(len(d.split("; ")) for d in diffs)


def constraints(cf: Any) -> dict[str, Any]:
    return {name: p.type_constraint for name, p in compat.parameters(cf).items()}


def _fits(observed: Any, traced: Any) -> bool:
    try:
        return bool(observed.is_subtype_of(traced))
    except Exception:  # noqa: BLE001 - user types' subtype checks may raise: fall back to ==
        return observed == traced


def _shape(spec: Any) -> str:
    if spec.shape.rank is None:
        return "<unknown rank>"
    return str(tuple(spec.shape.as_list()))


def _kind(t: Any) -> str:
    if isinstance(t, tf.TensorSpec):
        return f"tensor {t.dtype.name} {_shape(t)}"
    if hasattr(t, "value") and type(t).__name__ == "Literal":
        return f"Python {type(t.value).__name__} {t.value!r}"
    return str(t)


def _describe(name: str, old: Any, new: Any, traced: Any) -> str:
    if isinstance(old, tf.TensorSpec) and isinstance(new, tf.TensorSpec):
        parts = []
        if old.dtype != new.dtype:
            parts.append(f"{name}: dtype {old.dtype.name} -> {new.dtype.name}")
        if _shape(old) != _shape(new):
            parts.append(f"{name}: shape {_shape(old)} -> {_shape(new)}")
        text = "; ".join(parts) or f"{name}: {old} -> {new}"
        if isinstance(traced, tf.TensorSpec) and _shape(traced) != _shape(new):
            text += f" (reduce_retracing traced it as {_shape(traced)})"
        return text
    if type(old).__name__ == "Literal" and type(new).__name__ == "Literal":
        return f"{name}: Python value {old.value!r} -> {new.value!r}"
    old_leaves, new_leaves = _leaves(old), _leaves(new)
    if old_leaves and new_leaves and len(old_leaves) == len(new_leaves):
        # A structure of tensors (a Keras batch, a dataset iterator): the tensors that changed.
        traced_leaves = _leaves(traced) or []
        parts = [
            _describe(f"{name}[{i}]", o, n, traced_leaves[i] if i < len(traced_leaves) else None)
            for i, (o, n) in enumerate(zip(old_leaves, new_leaves))
            if not _fits(n, o)
        ]
        if parts:
            return "; ".join(parts)
    return f"{name}: {_kind(old)} -> {_kind(new)}"


def _leaves(t: Any) -> list[Any] | None:
    """The tensor specs inside a nested TraceType, in order; None when it has none to list."""
    try:
        element = getattr(t, "_element_spec", None)
        if element is not None:  # a tf.data iterator: the specs of its elements
            return [leaf for e in tf.nest.flatten(element) for leaf in (_leaves(e) or [e])]
        if isinstance(t, tf.TensorSpec):
            return [t]
        leaves = list(t.flatten()) if hasattr(t, "flatten") else []
        return leaves if leaves and all(isinstance(leaf, tf.TensorSpec) for leaf in leaves) else None
    except Exception:  # noqa: BLE001 - a user type's flatten may raise
        return None
