"""Detects tf.function pitfalls in the user's code: ast analysis of each traced function,
confirmed by what the run observed (trace counts, per-call prints, retrace reasons, errors).

Pure Python (no TensorFlow), so it can be tested against recorded reports. Each rule is one
function in rules.py, registered by its decorator; `detect` runs them all.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ...contract.job import FunctionReport, Warning
from .rules import OBSERVED, SYNTAX, Seen
from .signature import suggest_signature
from .syntax import find_def, module_scalars

__all__ = ["detect", "suggest_signature"]


def detect(source: str, reports: list[FunctionReport], functions: list[Callable]) -> list[Warning]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # the run has already reported why it cannot be read
        return []
    module_values = module_scalars(tree)
    found: list[Warning] = []
    for report, function in zip(reports, functions):
        node = find_def(tree, getattr(getattr(function, "__code__", None), "co_firstlineno", None))
        seen = Seen.of(report, node, module_values)
        if node is not None:
            body = node.body if isinstance(node.body, list) else [node.body]
            for sub in (s for stmt in body for s in ast.walk(stmt)):
                found += [w for rule in SYNTAX if (w := rule(seen, sub)) is not None]
        for observed in OBSERVED:
            found += observed(seen)
    unique: dict[tuple, Warning] = {}
    for w in found:
        unique.setdefault((w.code, w.line, w.function), w)
    return list(unique.values())
