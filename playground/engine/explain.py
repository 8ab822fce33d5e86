"""What an existing tf.function has traced so far, read from its own cache: each concrete
function's signature and why it was traced (its types against the closest earlier trace's, as
a planned call's reason is found). Nothing is called or traced, so the function stays as it was.
The notebook's %tf_playground_explain line magic shows it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tensorflow.python.eager.polymorphic_function.polymorphic_function import Function

from ..contract.errors import SpecError
from ..contract.i18n import _
from . import compat
from .tracing import constraints, why_traced


@dataclass(frozen=True)
class Trace:
    signature: str  # "f(x: TensorSpec(shape=(3,), ...)) -> ..."
    reason: str  # as CallRecord.reason: "first call", "x: shape ..."


@dataclass(frozen=True)
class Explanation:
    name: str
    tracing_count: int  # TF's own count, traces that raised included
    options: dict[str, Any]  # input_signature, reduce_retracing, jit_compile
    traces: list[Trace] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def explain(fn: Any, name: str) -> Explanation:
    if not isinstance(fn, Function):
        raise SpecError(
            _(
                "{name} is not a tf.function: it is a {type}. Decorate it with "
                "@tf.function, or wrap it: f = tf.function(f)"
            ).format(name=name, type=type(fn).__name__)
        )
    compat.reset()
    cached = compat.concrete_functions(fn) or []
    traces = []
    for index, cf in enumerate(cached):
        own = constraints(cf)
        traces.append(Trace(f"{name}{compat.signature_text(cf)}", why_traced(cached[:index], own, own)))
    count = int(fn.experimental_get_tracing_count())
    notes = [f.detail for f in compat.fallbacks()]
    if count != len(cached):
        notes.append(
            _(
                "TensorFlow counts {count} trace(s) and its cache holds {cached}: a trace "
                "that raised leaves nothing in the cache."
            ).format(count=count, cached=len(cached))
        )
    options = compat.options_of(fn)
    if options["input_signature"] is not None:  # the display's JSON holds text, not specs
        options["input_signature"] = [str(spec) for spec in options["input_signature"]]
    return Explanation(name=name, tracing_count=count, options=options, traces=traces, notes=notes)
