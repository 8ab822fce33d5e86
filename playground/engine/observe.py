"""Script mode's observer: hooks on TensorFlow's own Function class record every tf.function the
user's file creates and every call it makes, while the user's objects stay TF's own.

A wrapper object in the user's call path would become part of their graph code: AutoGraph
converts what it does not recognise, so recursion, errors and conversion decisions would run
through us. TF's Function class is what AutoGraph recognises as a tf.function, so the hooks sit
on it: __init__ registers user functions, __call__ reads the tracing count and the function cache
before and after an outermost eager call. Calls made while a graph is being built (a tf.function
calling another, recursion) pass straight through: they belong to the call that is tracing.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from tensorflow.python.eager import context
from tensorflow.python.eager.polymorphic_function.polymorphic_function import Function

from . import compat, script_env
from .entry import source_function
from .tracing import TrackedFunction
from .values import label_of

MakeTracked = Callable[[Any, str, Callable, dict], TrackedFunction]


class Observer:
    """Collects the user's tf.functions, in creation order, and the calls the script makes."""

    def __init__(self, make_tracked: MakeTracked, filename: str, overrides: dict | None = None) -> None:
        self.make_tracked = make_tracked
        self.filename = filename
        self.overrides = overrides or {}  # job options that win over the user's decorator
        self.functions: list[TrackedFunction] = []
        self._by_function: dict[Function, TrackedFunction] = {}  # keyed by TF's own object
        self._local = threading.local()

    def created(self, fn: Function, caller: FrameType | None) -> None:
        python_function = fn._python_function
        code = getattr(source_function(python_function), "__code__", None)
        if (code is None or code.co_filename != self.filename) and _creator(caller) != self.filename:
            return  # TF's or a library's own tf.function
        name = getattr(source_function(python_function), "__qualname__", fn._name)
        tracked = self.make_tracked(fn, name, python_function, compat.options_of(fn))
        self.functions.append(tracked)
        self._by_function[fn] = tracked

    def tracked(self, fn: Function) -> TrackedFunction | None:
        if getattr(self._local, "depth", 0) or not context.executing_eagerly():
            return None  # inside another call's trace: part of that call
        try:
            return self._by_function.get(fn)
        except TypeError:  # an unhashable subclass of the user's
            return None

    @contextmanager
    def inside(self) -> Iterator[None]:
        self._local.depth = getattr(self._local, "depth", 0) + 1
        try:
            yield
        finally:
            self._local.depth -= 1

    def reported(self) -> list[TrackedFunction]:
        """The functions a person thinks of: a method's class-level Function, which never runs
        itself once its per-instance copies exist, is left out unless it was used."""
        bound = {source_function(t.python_function) for t in self.functions if _bound(t)}
        return [
            t
            for t in self.functions
            if t.calls or t.tracing_count or _bound(t) or source_function(t.python_function) not in bound
        ]

    def global_names(self, namespace: dict) -> dict[TrackedFunction, list[str]]:
        """Which module-level names hold each function when the script ends."""
        names: dict[TrackedFunction, list[str]] = {}
        for name, value in list(namespace.items()):
            if isinstance(value, Function) and value in self._by_function:
                names.setdefault(self._by_function[value], []).append(name)
        return names


def escaped_call(error: BaseException | None) -> tuple[TrackedFunction, int] | None:
    """The recorded call an uncaught exception came out of, read from its traceback: the
    outermost observed call's frame still holds its locals."""
    tb = error.__traceback__ if error is not None else None
    while tb is not None:
        if tb.tb_frame.f_code is _observed_call.__code__:
            frame = tb.tb_frame.f_locals
            return frame["tracked"], frame["pending"].index
        tb = tb.tb_next
    return None


def _bound(tracked: TrackedFunction) -> bool:
    """A per-instance copy of a method's Function: its python_function is a bound method."""
    return tracked.python_function is not source_function(tracked.python_function)


_active: Observer | None = None
_original_init = Function.__init__
_original_call = Function.__call__


def _observed_init(self: Function, *args: Any, **kwargs: Any) -> None:
    observer = _active
    if observer is not None and observer.overrides:
        kwargs.update(_overridden(args, kwargs, observer.overrides))
        args = args[:2]
    _original_init(self, *args, **kwargs)
    if observer is not None:
        try:
            observer.created(self, sys._getframe(1))
        except Exception:  # noqa: BLE001 - observation never changes what the user's code does
            pass


# tf.function itself and the decorators TF wraps it in: the creator is whoever called them.
_TF_FUNCTION_FILES = (
    os.sep + os.path.join("polymorphic_function", "polymorphic_function.py"),
    os.sep + os.path.join("tensorflow", "python", "util") + os.sep,
)


def _creator(frame: FrameType | None) -> str:
    """The file that asked for a tf.function: the first frame above tf.function's own."""
    while frame is not None and any(part in frame.f_code.co_filename for part in _TF_FUNCTION_FILES):
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else ""


def _overridden(args: tuple, kwargs: dict, overrides: dict) -> dict:
    """Function(python_function, name, input_signature, autograph, jit_compile, reduce_retracing,
    ...) with the job's options in place of the positional or keyword ones."""
    names = (
        "input_signature",
        "autograph",
        "jit_compile",
        "reduce_retracing",
        "experimental_implements",
        "experimental_autograph_options",
        "experimental_attributes",
    )
    merged = dict(zip(names, args[2:]))
    merged.update(overrides)
    return merged


def _observed_call(self: Function, *args: Any, **kwds: Any) -> Any:
    script_env.engine_frames(+1)  # this frame costs the user's recursion nothing
    try:
        observer = _active
        tracked = observer.tracked(self) if observer is not None else None
        if tracked is None:
            return _original_call(self, *args, **kwds)
        pending = tracked.begin(list(args), kwds, _label(args, kwds))
        with observer.inside():  # type: ignore[union-attr]
            try:
                result = _original_call(self, *args, **kwds)
            except BaseException as e:
                tracked.finish(pending, error=e)
                raise
        tracked.finish(pending, result=result)
        return result
    finally:
        script_env.engine_frames(-1)


def _label(args: tuple, kwds: dict) -> str:
    try:
        return ", ".join([label_of(a) for a in args] + [f"{k}={label_of(v)}" for k, v in kwds.items()])
    except Exception:  # noqa: BLE001 - a user's __repr__ may raise
        return "..."


# AutoGraph calls what carries this attribute as it is, never converting it.
_observed_call.autograph_info__ = frozenset()  # type: ignore[attr-defined]
_observed_init.autograph_info__ = frozenset()  # type: ignore[attr-defined]


@contextmanager
def observing(observer: Observer) -> Iterator[Observer]:
    """Installs the hooks for the duration of the user's script; one script per process."""
    global _active
    _active = observer
    Function.__init__ = _observed_init
    Function.__call__ = _observed_call
    try:
        yield observer
    finally:
        Function.__init__ = _original_init
        Function.__call__ = _original_call
        _active = None
