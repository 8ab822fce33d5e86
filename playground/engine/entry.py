"""Finds the function to analyse: a named entry, unwrapped so it can be re-wrapped with the job's
options, and the user's own function under TF's and decorators' wrappers."""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..contract.errors import EntryError
from ..contract.i18n import _


def resolve(expression: str, namespace: dict) -> tuple[Any, Any]:
    """Evaluates a name or expression such as `Counter().increment` in the user's module.

    Returns (callable, owner): the owner is the object left of the last dot, kept alive by the
    caller because a bound tf.function holds its instance only weakly.
    """
    try:
        tree = ast.parse(expression.strip(), "<--function>", "eval")
        owner = None
        if isinstance(tree.body, ast.Attribute):
            owner = eval(compile(ast.Expression(tree.body.value), "<--function>", "eval"), namespace)  # noqa: S307 - the user's own expression, in the sandbox
            target = getattr(owner, tree.body.attr)
        else:
            target = eval(compile(tree, "<--function>", "eval"), namespace)  # noqa: S307
    except NameError:
        names = sorted(
            k
            for k, v in namespace.items()
            if callable(v)
            and not k.startswith("_")
            and getattr(v, "__module__", None) == namespace.get("__name__")
        )
        hint = _("; functions in the source: {names}").format(names=", ".join(names)) if names else ""
        raise EntryError(
            _("entry {entry} is not defined in the source").format(entry=repr(expression)) + hint
        ) from None
    except SyntaxError as e:
        raise EntryError(
            _("entry {entry} is not a valid expression: {error}").format(entry=repr(expression), error=e.msg)
        ) from None
    except Exception as e:
        raise EntryError(
            _("evaluating entry {entry} raised {error}").format(
                entry=repr(expression), error=f"{type(e).__name__}: {e}"
            )
        ) from e
    if not callable(target):
        raise EntryError(
            _("entry {entry} is a {kind}, not a callable").format(
                entry=repr(expression), kind=type(target).__name__
            )
        )
    return target, owner


def unwrap(target: Any) -> tuple[Callable, dict]:
    """The plain Python function behind a tf.function, and the options it was decorated with."""
    if hasattr(target, "python_function"):
        options = {
            "input_signature": target.input_signature,
            "reduce_retracing": bool(getattr(target, "_reduce_retracing", False)),
            "jit_compile": bool(getattr(target, "_jit_compile", False)),
        }
        return target.python_function, options
    return target, {}


def source_function(python_function: Callable) -> Callable:
    """The user's own function: under decorators' wrappers and functools.partial, and a method's
    plain function under the bound method that TF's per-instance copies hold."""
    function = inspect.unwrap(python_function)
    if isinstance(function, functools.partial):
        function = inspect.unwrap(function.func)
    return inspect.unwrap(function.__func__) if inspect.ismethod(function) else function


def is_lambda(python_function: Callable) -> bool:
    return getattr(source_function(python_function), "__name__", "") == "<lambda>"
