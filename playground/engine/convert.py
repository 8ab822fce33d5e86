"""Shows what AutoGraph turns the user's function into (tf.autograph.to_code), which source line
each converted line came from, and a note when it cannot: lambdas, builtins, unreadable source.

to_code is textwrap.dedent(inspect.getsource(to_graph(f))); the converted function's
ag_source_map maps lines of its generated module to origins in the user's file, so line i of the
text is generated line (first line of the function) + i - 1.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from ..contract.i18n import N_, _, sentences
from ..contract.job import CodeLine
from .entry import is_lambda, source_function
from .frames import hide_paths

LAMBDA_NOTE = N_(
    "This is a lambda. AutoGraph cannot convert control flow in a lambda (there are no "
    "if/for/while statements to rewrite, and a lambda sharing its line with another "
    "cannot be located at all), so the graph is whatever its TF ops build. Use `def` to "
    "see AutoGraph at work."
)


def converted_code(python_function: Callable, filename: str = "") -> tuple[str | None, str, list[CodeLine]]:
    """Returns (code, note, line map); code is None when AutoGraph could not convert it."""
    target = source_function(python_function)
    note = _(LAMBDA_NOTE) if is_lambda(python_function) else ""

    try:
        converted = tf.autograph.to_graph(target)
        code = textwrap.dedent(inspect.getsource(converted))
    except Exception as e:  # noqa: BLE001 - AutoGraph's own conversion errors are many and private
        reason = _("AutoGraph could not convert {name}: {error}").format(
            name=repr(getattr(target, "__name__", target)),
            error=f"{type(e).__name__}: {hide_paths(str(e).splitlines()[0]) if str(e) else ''}",
        )

        return None, sentences(note, reason), []
    try:
        lines = line_map(converted, code, filename)
    except Exception:  # noqa: BLE001 - the map is private API; the code itself is what matters most
        lines = []
    return code, note, lines


def line_map(converted: Any, code: str, filename: str) -> list[CodeLine]:
    """Line i of the converted code (1-based) -> the user's source line it came from."""
    first = inspect.getsourcelines(converted)[1]
    generated = inspect.getsourcefile(converted)
    origins = {}
    for location, origin in getattr(converted, "ag_source_map", {}).items():
        if location.filename == generated and (not filename or origin.loc.filename == filename):
            origins[location.lineno] = origin.loc.lineno
    return [
        CodeLine(line=i, source_line=origins[first + i - 1])
        for i in range(1, len(code.splitlines()) + 1)
        if first + i - 1 in origins
    ]
