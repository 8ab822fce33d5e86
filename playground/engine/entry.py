"""Finds the function to analyse: a named entry re-wrapped with the job's options, or, in script
mode, every tf.function the user's script creates (by patching tf.function while it runs)."""
from __future__ import annotations

import ast
import inspect
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import tensorflow as tf

from ..errors import EntryError
from .tracing import TrackedFunction


def resolve(expression: str, namespace: dict) -> tuple[Any, Any]:
    """Evaluates a name or expression such as `Counter().increment` in the user's module.

    Returns (callable, owner): the owner is the object left of the last dot, kept alive by the
    caller because a bound tf.function holds its instance only weakly.
    """
    try:
        tree = ast.parse(expression.strip(), "<--function>", "eval")
        owner = None
        if isinstance(tree.body, ast.Attribute):
            owner = eval(compile(ast.Expression(tree.body.value), "<--function>", "eval"),
                         namespace)  # noqa: S307 - the user's own expression, in the sandbox
            target = getattr(owner, tree.body.attr)
        else:
            target = eval(compile(tree, "<--function>", "eval"), namespace)  # noqa: S307
    except NameError:
        names = sorted(k for k, v in namespace.items() if callable(v) and not k.startswith("_")
                       and getattr(v, "__module__", None) == namespace.get("__name__"))
        hint = f"; functions in the source: {', '.join(names)}" if names else ""
        raise EntryError(f"entry {expression!r} is not defined in the source{hint}") from None
    except SyntaxError as e:
        raise EntryError(f"entry {expression!r} is not a valid expression: {e.msg}") from None
    except Exception as e:
        raise EntryError(f"evaluating entry {expression!r} raised {type(e).__name__}: {e}") from e
    if not callable(target):
        raise EntryError(f"entry {expression!r} is a {type(target).__name__}, not a callable")
    return target, owner


def unwrap(target: Any) -> tuple[Callable, dict]:
    """The plain Python function behind a tf.function, and the options it was decorated with."""
    if hasattr(target, "python_function"):
        options = {"input_signature": target.input_signature,
                   "reduce_retracing": bool(getattr(target, "_reduce_retracing", False)),
                   "jit_compile": bool(getattr(target, "_jit_compile", False))}
        return target.python_function, options
    return target, {}


def source_function(python_function: Callable) -> Callable:
    """The user's own function, under TF's bound-method wrapper if there is one."""
    return inspect.unwrap(python_function)


def is_lambda(python_function: Callable) -> bool:
    return getattr(source_function(python_function), "__name__", "") == "<lambda>"


class ScriptRecorder:
    """Collects the tf.functions a script creates, in creation order, with each call they get."""

    def __init__(self, make_tracked: Callable[[Any, str, Callable], TrackedFunction],
                 overrides: dict | None = None) -> None:
        self.make_tracked = make_tracked
        self.overrides = overrides or {}      # job options that win over the user's decorator
        self.functions: list[TrackedFunction] = []
        self.options: dict[int, dict] = {}

    def track(self, fn: Any, name: str, options: dict) -> TrackedFunction:
        tracked = self.make_tracked(fn, name, fn.python_function)
        self.functions.append(tracked)
        self.options[id(tracked)] = options
        return tracked

    def forget(self, tracked: TrackedFunction) -> None:
        if tracked in self.functions:
            self.functions.remove(tracked)

    @contextmanager
    def patched(self) -> Iterator["ScriptRecorder"]:
        original = tf.function
        recorder = self

        def recording_function(func: Any = None, *args: Any, **kwargs: Any) -> Any:
            if func is None:
                return lambda f: recording_function(f, *args, **kwargs)
            options = {**dict(zip(("input_signature",), args)), **kwargs, **recorder.overrides}
            fn = original(func, **options)
            name = getattr(func, "__qualname__", getattr(func, "__name__", "function"))
            kept = {k: options.get(k) for k in ("input_signature", "reduce_retracing",
                                                "jit_compile") if options.get(k) is not None}
            return FunctionProxy(fn, name, recorder, kept)

        tf.function = recording_function
        try:
            yield self
        finally:
            tf.function = original


class FunctionProxy:
    """Stands in for a user's tf.function in script mode: records calls, delegates the rest."""

    def __init__(self, fn: Any, name: str, recorder: ScriptRecorder, options: dict,
                 *, register_now: bool = True) -> None:
        self._fn, self._name, self._recorder, self._options = fn, name, recorder, options
        self._tracked: TrackedFunction | None = None
        self._bound: dict[int, FunctionProxy] = {}
        if register_now:  # reported in creation order, called or not
            self._tracker()

    def _tracker(self) -> TrackedFunction:
        if self._tracked is None:
            self._tracked = self._recorder.track(self._fn, self._name, self._options)
        return self._tracked

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        label = ", ".join([_label(a) for a in args] + [f"{k}={_label(v)}" for k, v in kwargs.items()])
        return self._tracker().call(list(args), kwargs, label, reraise=True)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        key = id(instance)
        if key not in self._bound:  # one tracked function per instance, as TF keeps one per instance
            # A method's class-level function never runs itself; its bound copies do, and are
            # registered on their first call.
            self._drop_unbound()
            self._bound[key] = FunctionProxy(self._fn.__get__(instance, owner), self._name,
                                             self._recorder, self._options, register_now=False)
        return self._bound[key]

    def _drop_unbound(self) -> None:
        if self._tracked is not None and not self._tracked.calls:
            self._recorder.forget(self._tracked)

    def __getattr__(self, item: str) -> Any:
        return getattr(self._fn, item)


def _label(value: Any) -> str:
    if isinstance(value, (tf.Tensor, tf.Variable)):
        dims = ",".join("None" if d is None else str(d) for d in value.shape)
        return f"{value.dtype.name}[{dims}]"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
