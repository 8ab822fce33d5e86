"""Turns parsed call specs into real arguments, and results into short readable summaries."""
from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from ..specs import CallSpec, PyValue, TensorSpec

_MAX_SUMMARY = 300


def make_tensor(spec: TensorSpec, seed: int) -> tf.Tensor:
    """Deterministic values: the same spec and seed always give the same tensor."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in spec.shape)  # calls never hold None dims
    dtype = tf.dtypes.as_dtype(spec.dtype)
    if dtype == tf.string:
        flat = np.array([f"s{i}" for i in range(int(np.prod(shape, dtype=np.int64)))], dtype=object)
        return tf.constant(flat.reshape(shape), dtype=tf.string)
    if dtype.is_bool:
        return tf.constant(rng.random(shape) < 0.5)
    if dtype.is_integer:
        low, high = (0, 10) if dtype.is_unsigned else (-5, 10)
        return tf.constant(rng.integers(low, high, size=shape), dtype=dtype)
    if dtype.is_complex:
        real = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        return tf.constant(real, dtype=dtype)
    return tf.cast(tf.constant(rng.standard_normal(shape), dtype=tf.float64), dtype)


def make_value(arg: TensorSpec | PyValue, seed: int) -> Any:
    return make_tensor(arg, seed) if isinstance(arg, TensorSpec) else arg.value


def make_args(call: CallSpec, call_index: int) -> tuple[list[Any], dict[str, Any]]:
    seed = 1000 * call_index
    args = [make_value(a, seed + i) for i, a in enumerate(call.args)]
    kwargs = {k: make_value(v, seed + 100 + i) for i, (k, v) in enumerate(call.kwargs)}
    return args, kwargs


def summarize(value: Any) -> str:
    """"float32[3] [2. 4. 6.]": dtype, shape and the first values, truncated."""
    if isinstance(value, (tf.Tensor, tf.Variable)):
        try:
            array = value.numpy()
        except Exception:  # a symbolic tensor leaked out of a graph
            return str(value)[:_MAX_SUMMARY]
        dims = ",".join(str(d) for d in value.shape)
        text = np.array2string(np.asarray(array), threshold=20, edgeitems=3,
                               max_line_width=120) if array.ndim else repr(array.item())
        out = f"{value.dtype.name}[{dims}] {text}"
    elif isinstance(value, (list, tuple)):
        inner = ", ".join(summarize(v) for v in value)
        out = f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    elif isinstance(value, dict):
        out = "{" + ", ".join(f"{k!r}: {summarize(v)}" for k, v in value.items()) + "}"
    else:
        out = repr(value)
    out = " ".join(out.split())  # one line, however numpy wrapped it
    return out if len(out) <= _MAX_SUMMARY else out[: _MAX_SUMMARY - 3] + "..."
