"""Deterministic tensors for call specs: the engine's calls and an exported notebook's calls get
the same values from the same (dtype, shape, seed). No TensorFlow at import time, so the
notebook builder (Streamlit side) can embed this function's source as it is."""

from __future__ import annotations

from typing import Any


def make_tensor(dtype: Any, shape: tuple, seed: int, uniform: Any = None, normal: Any = None) -> Any:
    """Deterministic values: the same dtype, shape and seed always give the same tensor.
    uniform=(low, high): values in [low, high), as the dtype holds them; normal=(mean, stddev)."""
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(seed)
    dtype = tf.dtypes.as_dtype(dtype)
    if uniform is not None:
        low, high = uniform
        if dtype.is_integer:
            return tf.constant(rng.integers(low, high, size=shape), dtype=dtype)
        values = tf.cast(tf.constant(rng.uniform(low, high, size=shape), dtype=tf.float64), dtype)
        # A narrower float can round a value up to high: that one becomes low, so none reaches high.
        return tf.where(values < tf.cast(high, dtype), values, tf.cast(low, dtype))
    if normal is not None:
        mean, stddev = normal
        return tf.cast(tf.constant(rng.normal(mean, stddev, size=shape), dtype=tf.float64), dtype)
    if dtype == tf.string:
        flat = np.array([f"s{i}" for i in range(int(np.prod(shape, dtype=np.int64)))], dtype=object)
        return tf.constant(flat.reshape(shape), dtype=tf.string)
    if dtype.is_bool:
        return tf.constant(rng.random(shape) < 0.5)
    if dtype.is_integer:
        low, high = (0, 10) if dtype.is_unsigned else (-5, 10)
        return tf.constant(rng.integers(low, high, size=shape), dtype=dtype)
    if dtype.is_complex:
        return tf.constant(rng.standard_normal(shape) + 1j * rng.standard_normal(shape), dtype=dtype)
    return tf.cast(tf.constant(rng.standard_normal(shape), dtype=tf.float64), dtype)
