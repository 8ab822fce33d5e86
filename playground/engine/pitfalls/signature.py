"""The input_signature that would serve every planned call with one trace."""

from __future__ import annotations

from collections.abc import Iterable

from ...contract import specs


def suggest_signature(call_texts: Iterable[str]) -> str | None:
    """The input_signature that covers every call: same dtype and rank, None where dims differ."""
    columns: list[list[specs.TensorSpec]] = []
    for text in call_texts:
        try:
            call = specs.parse_call(text)
        except specs.SpecError:
            return None
        if call.kwargs or not all(isinstance(a, specs.TensorSpec) for a in call.args):
            return None
        if not columns:
            columns = [[] for _ in call.args]
        if len(call.args) != len(columns):
            return None
        for column, arg in zip(columns, call.args):
            column.append(arg)  # type: ignore[arg-type]
    if not columns:
        return None
    entries = []
    for column in columns:
        dtypes, ranks = {s.dtype for s in column}, {len(s.shape) for s in column}
        if len(dtypes) != 1 or len(ranks) != 1:
            return None
        dims = [
            "None" if len({s.shape[i] for s in column}) > 1 else str(column[0].shape[i])
            for i in range(ranks.pop())
        ]
        entries.append(f"tf.TensorSpec([{', '.join(dims)}], tf.{dtypes.pop()})")
    return "[" + ", ".join(entries) + "]"
