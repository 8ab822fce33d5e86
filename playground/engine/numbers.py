"""Numbers side by side (--numbers): each successful call of the plan run again eagerly, as a
graph and under XLA, with the same inputs, and every output compared element by element against
eager's: the largest absolute and relative error, where it is, and a verdict against the
tolerance (numpy.isclose's rule, rtol = atol = tolerance).

Each mode runs the user's Python function afresh (tf.function made here, the job's options but
jit_compile), so a function that changes a variable or draws random numbers gives each mode a
different state: the report says so instead of calling that a difference of the compiler.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import tensorflow as tf

from ..contract.i18n import _
from ..contract.job import Mode, Numbers, NumbersCall, NumbersDiff
from ..contract.reasons import mode_name

PAIRS: tuple[tuple[Mode, Mode], ...] = (("eager", "graph"), ("eager", "xla"), ("graph", "xla"))
# Ops whose outputs differ between two runs by design: random numbers, state changed in place.
_RANDOM = ("Random", "Multinomial", "Shuffle")
_STATEFUL = ("Assign", "ScatterUpdate", "ScatterAdd", "ScatterSub")


def compare(
    python_function: Callable,
    options: dict,
    calls: list[tuple[int, str, list, dict]],
    tolerance: float,
    xla: bool = True,
) -> Numbers:
    """calls: (index, the call as written, its args, its kwargs)."""
    plain = {k: v for k, v in options.items() if k != "jit_compile"}
    makers: dict[str, Callable] = {
        "eager": python_function,
        "graph": tf.function(python_function, **{**plain, "jit_compile": False}),
    }
    if xla:
        makers["xla"] = tf.function(python_function, **{**plain, "jit_compile": True})
    compared = []
    for index, label, args, kwargs in calls:
        outputs: dict[str, Any] = {}
        failed: dict[str, str] = {}
        for mode, fn in makers.items():
            try:
                outputs[mode] = fn(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - a mode that raises is this call's finding
                failed[mode] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        diffs = []
        for a, b in PAIRS:
            if a not in makers or b not in makers:
                continue
            if a in failed or b in failed:
                mode = a if a in failed else b
                note = _("{mode} raised {error}").format(mode=mode_name(mode), error=failed[mode])
                diffs.append(NumbersDiff(a, b, "failed", note=note))
                continue
            diffs.extend(pair_diffs(a, b, outputs[a], outputs[b], tolerance))
        compared.append(NumbersCall(index, label, diffs))
    return Numbers(tolerance=tolerance, calls=compared, notes=_state_notes(makers["graph"]))


def pair_diffs(a: Mode, b: Mode, left: Any, right: Any, tolerance: float) -> list[NumbersDiff]:
    """Every output of two modes' results, leaf by leaf, in the structure's order."""
    lefts, rights = dict(leaves(left)), dict(leaves(right))
    if list(lefts) != list(rights):
        note = _("the outputs' structures differ: {a} against {b}").format(
            a=", ".join(lefts) or "()", b=", ".join(rights) or "()"
        )
        return [NumbersDiff(a, b, "mismatch", note=note)]
    return [element_diff(a, b, path, lefts[path], rights[path], tolerance) for path in lefts]


def element_diff(a: Mode, b: Mode, path: str, left: Any, right: Any, tolerance: float) -> NumbersDiff:
    x, y = np.asarray(left), np.asarray(right)
    if x.shape != y.shape or x.dtype != y.dtype:
        note = _("{a} gave {x}, {b} gave {y}").format(
            a=mode_name(a), b=mode_name(b), x=f"{x.dtype}{list(x.shape)}", y=f"{y.dtype}{list(y.shape)}"
        )
        return NumbersDiff(a, b, "mismatch", output=path, note=note)
    if x.size == 0:
        return NumbersDiff(a, b, "match", output=path, max_abs=0.0, max_rel=0.0)
    if x.dtype.kind not in "biufc":  # strings, objects: equal or not
        equal = bool(np.all(x == y))
        return NumbersDiff(a, b, "match" if equal else "differs", output=path)
    xs, ys = (
        x.astype(np.complex128 if x.dtype.kind == "c" else np.float64),
        y.astype(np.complex128 if y.dtype.kind == "c" else np.float64),
    )
    error = np.abs(xs - ys)
    both_nan = np.isnan(xs) & np.isnan(ys)
    error = np.where(both_nan, 0.0, error)
    error = np.where(np.isnan(error), np.inf, error)  # a NaN on one side only is the worst error
    scale = np.abs(xs)
    relative = np.divide(error, scale, out=np.where(error > 0, np.inf, 0.0), where=scale > 0)
    worst = np.unravel_index(int(np.argmax(error)), x.shape) if x.shape else ()
    close = np.isclose(ys, xs, rtol=tolerance, atol=tolerance, equal_nan=True)
    return NumbersDiff(
        a,
        b,
        "match" if bool(np.all(close)) else "differs",
        output=path,
        max_abs=_finite(float(error[worst])),
        max_rel=_finite(float(np.max(relative))),
        where=str(list(int(i) for i in worst)) if x.shape else "",
        a_value=_value(x[worst]),
        b_value=_value(y[worst]),
    )


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf) of a nested result: "[0]", "['loss']", ".field"; "" for a single value."""
    if isinstance(value, dict):
        for key in value:
            yield from leaves(value[key], f"{path}[{key!r}]")
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        for field_name in value._fields:
            yield from leaves(getattr(value, field_name), f"{path}.{field_name}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from leaves(item, f"{path}[{i}]")
    else:
        yield path, value


def _state_notes(graph_fn: Any) -> list[str]:
    """Why two modes may differ by design, read from the graph's ops."""
    try:
        ops = {op.type for cf in graph_fn._list_all_concrete_functions() for op in cf.graph.get_operations()}
    except Exception:  # noqa: BLE001 - no graph to read: no note
        return []
    notes = []
    if any(any(op.startswith(p) or p in op for p in _RANDOM) for op in ops):
        notes.append(
            _("The function draws random numbers: each mode draws its own, so they differ by design.")
        )
    if any(any(p in op for p in _STATEFUL) for op in ops):
        notes.append(
            _("The function changes variables: each mode ran after the others had changed them, so "
              "outputs that read them differ by design.")
        )  # fmt: skip
    return notes


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _value(element: Any) -> str:
    return np.array2string(np.asarray(element), precision=9)[:80]
