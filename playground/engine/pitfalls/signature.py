"""The input_signature that would serve every planned call with one trace, as Python writes it."""

from __future__ import annotations

from collections.abc import Iterable

from ...contract import plan_fit


def suggest_signature(call_texts: Iterable[str]) -> str | None:
    """[tf.TensorSpec([None, 3], tf.float32), ...] covering every call (plan_fit.covering_signature)."""
    covering = plan_fit.covering_signature(list(call_texts))
    if covering is None:
        return None
    entries = [
        f"tf.TensorSpec([{', '.join('None' if d is None else str(d) for d in spec.shape)}], tf.{spec.dtype})"
        for spec in covering
    ]
    return "[" + ", ".join(entries) + "]"
