"""TensorFlow's private APIs the engine reads, with the stand-in each supported version needs;
every stand-in that ran, and every feature a version lacks, is noted for Report.fallbacks.

    function cache   Function._function_cache (2.15+); on 2.12: the caches of its two
                     TracingCompilers, _variable_creation_fn and _no_variable_creation_fn
    trace types      ConcreteFunction.function_type (2.15+); on 2.12: the FunctionType the cache
                     files the concrete function under (its key)
"""

from __future__ import annotations

from typing import Any

from ..contract.i18n import _
from ..contract.job import Fallback

_TRACING_COMPILERS = ("_variable_creation_fn", "_no_variable_creation_fn")

_noted: dict[str, Fallback] = {}
_types: dict[int, tuple[Any, Any]] = {}  # id(concrete function) -> (it, its FunctionType)


def reset() -> None:
    """At the start of a run: fallbacks are per report."""
    _noted.clear()
    _types.clear()


def note(feature: str, detail: str, available: bool = True) -> None:
    _noted.setdefault(feature, Fallback(feature, detail, available))


def fallbacks() -> list[Fallback]:
    return list(_noted.values())


def concrete_functions(fn: Any) -> list[Any] | None:
    """The traces in a tf.function's cache, without tracing anything; None if unreadable."""
    cache = getattr(fn, "_function_cache", None)
    if cache is not None:
        return list(cache.values())
    candidates = [getattr(getattr(fn, name, None), "_function_cache", None) for name in _TRACING_COMPILERS]
    caches = [c for c in candidates if c is not None]
    if not caches:
        note(
            "function cache",
            _(
                "this TensorFlow's tf.function keeps no readable cache: traces, "
                "retrace reasons and graphs are missing"
            ),
            available=False,
        )
        return None
    note(
        "function cache",
        _(
            "read through Function._variable_creation_fn and "
            "_no_variable_creation_fn (as on TensorFlow 2.12; 2.15 has "
            "Function._function_cache)"
        ),
    )
    found = []
    for cache in caches:
        for key, cf in getattr(cache, "_primary", {}).items():
            function_type = next((part for part in key if hasattr(part, "parameters")), None)
            if function_type is not None:
                _types[id(cf)] = (cf, function_type)
        found += list(cache.values())
    return found


def options_of(fn: Any) -> dict[str, Any]:
    """The options a tf.function was made with (its private fields, on every supported TF)."""
    return {
        "input_signature": fn.input_signature,
        "reduce_retracing": bool(fn._reduce_retracing),
        "jit_compile": bool(fn._jit_compile),
    }


def parameters(cf: Any) -> dict[str, Any]:
    """A trace's parameters by name (each with its .type_constraint, a TraceType)."""
    function_type = getattr(cf, "function_type", None)
    if function_type is None:
        held = _types.get(id(cf))
        function_type = held[1] if held is not None and held[0] is cf else None
        if function_type is None:
            note(
                "trace types",
                _(
                    "this TensorFlow does not say which types a trace was made "
                    "for: retrace reasons are missing"
                ),
                available=False,
            )
            return {}
        note(
            "trace types",
            _(
                "read from the function cache's keys (ConcreteFunction has no "
                "function_type on TensorFlow 2.12)"
            ),
        )
    return dict(function_type.parameters)


def signature_text(cf: Any) -> str:
    """ "(x: TensorSpec(shape=(3,), ...)) -> TensorSpec(...)", as 2.15+ prints it; 2.12's
    printed signature names no types, so it is built from the trace types."""
    text = cf.pretty_printed_signature(verbose=False)
    params = parameters(cf)
    if not params or ":" in text:
        return text
    note(
        "concrete signatures",
        _("built from the trace types (this TensorFlow prints signatures without them)"),
    )
    import tensorflow as tf

    outputs = tf.nest.map_structure(
        lambda t: tf.TensorSpec(t.shape, t.dtype) if isinstance(t, tf.Tensor) else t, cf.structured_outputs
    )
    return "(" + ", ".join(f"{name}: {p.type_constraint}" for name, p in params.items()) + f") -> {outputs}"
