"""Shows what AutoGraph turns the user's function into (tf.autograph.to_code), with a note when
it cannot: lambdas, builtins, and source that inspect cannot read."""
from __future__ import annotations

from typing import Callable

import tensorflow as tf

from .entry import is_lambda, source_function
from .frames import hide_paths

LAMBDA_NOTE = ("This is a lambda. AutoGraph cannot convert control flow in a lambda (there are no "
               "if/for/while statements to rewrite, and a lambda sharing its line with another "
               "cannot be located at all), so the graph is whatever its TF ops build. Use `def` to "
               "see AutoGraph at work.")


def converted_code(python_function: Callable) -> tuple[str | None, str]:
    """Returns (code, note); code is None when AutoGraph could not convert the function."""
    target = source_function(python_function)
    note = LAMBDA_NOTE if is_lambda(python_function) else ""
    try:
        return tf.autograph.to_code(target), note
    except Exception as e:  # AutoGraph's own conversion errors are many and private
        reason = f"AutoGraph could not convert {getattr(target, '__name__', target)!r}: " \
                 f"{type(e).__name__}: {hide_paths(str(e).splitlines()[0]) if str(e) else ''}"
        return None, (note + " " + reason).strip()
