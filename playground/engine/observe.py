"""Script mode's observer: hooks on TensorFlow's own Function class record every tf.function the
program creates (the user's own and those libraries make for it: Keras's train step,
tf.data's map functions, a restored SavedModel's) and every call it makes, while the user's
objects stay TF's own.

A wrapper object in the user's call path would become part of their graph code: AutoGraph
converts what it does not recognise, so recursion, errors and conversion decisions would run
through us. TF's Function class is what AutoGraph recognises as a tf.function, so the hooks sit
on it: __init__ registers each function with its maker, __call__ reads the tracing count and the function cache
before and after an outermost eager call. Calls made while a graph is being built (a tf.function
calling another, recursion) pass straight through: they belong to the call that is tracing.
"""

from __future__ import annotations

import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from tensorflow.python.eager import context
from tensorflow.python.eager.polymorphic_function.polymorphic_function import Function

from . import compat, makers, script_env
from .entry import source_function
from .tracing import Pending, TrackedFunction

MakeTracked = Callable[..., TrackedFunction]  # (fn, name, python_function, options, maker=, made_at=)


class Observer:
    """Collects every tf.function the program creates, in creation order, and the calls it
    makes: the user's own, and those a library made for it (maker: 'keras: ...')."""

    def __init__(
        self,
        make_tracked: MakeTracked,
        users: makers.UserFiles,
        overrides: dict | None = None,
        adopt: bool = False,
    ) -> None:
        self.make_tracked = make_tracked
        self.users = users  # which files are the user's own
        self.overrides = overrides or {}  # job options that win over the user's decorator
        self.functions: list[TrackedFunction] = []
        self._by_function: dict[Function, TrackedFunction] = {}  # keyed by TF's own object
        # A watched block (trace mode) adopts the functions made before it at their first call.
        self.adopt = adopt
        self._seen: weakref.WeakSet[Function] = weakref.WeakSet()
        self._local = threading.local()

    def created(self, fn: Function, caller: FrameType | None, made_before: bool = False) -> None:
        python_function = fn._python_function
        code = getattr(source_function(python_function), "__code__", None)
        users = (code is not None and self.users(code.co_filename)) or self.users(makers.creator_file(caller))
        if users:
            name, maker = getattr(source_function(python_function), "__qualname__", fn._name), ""
        elif made_before:  # its maker's frames are gone: the library its code is from
            name, maker = fn._name, makers.library_of(code.co_filename if code is not None else "?")
        else:  # a library's, made for the user's program: Keras's train step, Dataset.map's
            name, maker = fn._name, makers.maker_of(caller, type(fn).__name__, self.users)
        line, site, _stack = makers.call_site(caller, self.users, depth=1)
        tracked = self.make_tracked(
            fn, name, python_function, compat.options_of(fn), maker=maker, made_at=line, made_site=site
        )
        self.functions.append(tracked)
        self._by_function[fn] = tracked

    def tracked(self, fn: Function) -> TrackedFunction | None:
        """The call's function, or None: not observed (not a recorded function, a call inside
        another's trace, or a failure of ours, which never changes what the call does)."""
        try:
            if getattr(self._local, "depth", 0):
                return None  # inside another call's trace: part of that call
            found = self._by_function.get(fn)
            if found is None and self.adopt and fn not in self._seen:
                self._seen.add(fn)
                self.created(fn, None, made_before=True)
                found = self._by_function.get(fn)
            # A call made while a library traces (Dataset.map's) belongs to that trace.
            return found if found is not None and context.executing_eagerly() else None
        except Exception:  # noqa: BLE001 - an unhashable subclass of the user's, or ours
            return None

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
    outermost recorded call's frame still holds its locals. A call the observer passed through
    (one made while a library traced it: `Dataset.map`, a restored SavedModel's) has none."""
    tb = error.__traceback__ if error is not None else None
    while tb is not None:
        if tb.tb_frame.f_code is _observed_call.__code__:
            pending = tb.tb_frame.f_locals.get("pending")
            if isinstance(pending, Pending):
                return tb.tb_frame.f_locals["tracked"], pending.index
        tb = tb.tb_next
    return None


def outcome(
    observer: Observer, namespace: dict, escaped: BaseException | None
) -> tuple[list[TrackedFunction], dict[TrackedFunction, list[str]]]:
    """After the script: the functions to report, the names that hold them, and each call that
    raised marked handled, but for the one the script's uncaught exception came out of. A
    failure here loses the markings, never the functions."""
    functions = list(observer.functions)
    names: dict[TrackedFunction, list[str]] = {}
    try:
        functions = observer.reported()
        names = observer.global_names(namespace)
        unhandled = escaped_call(escaped)
        for tracked in functions:
            tracked.mark_handled(unhandled[1] if unhandled and unhandled[0] is tracked else None)
    except Exception:  # noqa: BLE001 - observation degrades, the report comes back
        pass
    return functions, names


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
    # The hot path of every training step in trace mode: no frame here that is not needed.
    counted = script_env.counting  # script mode: this frame costs the user's recursion nothing
    if counted:
        script_env.engine_frames(+1)
    try:
        observer = _active
        tracked = observer.tracked(self) if observer is not None else None
        if tracked is None:
            return _original_call(self, *args, **kwds)
        # A quiet function (trace mode's, a library's) pays two counter reads and a clock per
        # call: its record is made only when the call traced or raised. A loud one opens it now,
        # for the live progress and the output offset.
        pending = None if tracked.quiet else _opened(tracked, args, kwds)
        count, started = tracked.count_traces(), time.perf_counter()
        caller = sys._getframe(1)
        local = observer._local  # type: ignore[union-attr]
        local.depth = getattr(local, "depth", 0) + 1  # calls made inside it pass through
        try:
            result = _original_call(self, *args, **kwds)
        except BaseException as e:
            local.depth -= 1
            pending = _finish(tracked, pending, args, kwds, count, started, caller, error=e)
            raise  # escaped_call reads this frame's pending
        local.depth -= 1
        if pending is None and tracked.count_traces() == count:
            tracked.calls_not_listed += 1
        else:
            _finish(tracked, pending, args, kwds, count, started, caller, result=result)
        return result
    finally:
        if counted:
            script_env.engine_frames(-1)


def _opened(tracked: TrackedFunction, args: tuple, kwds: dict) -> Pending | None:
    try:
        return tracked.begin(list(args), kwds)
    except Exception:  # noqa: BLE001 - recorded afterwards, without its output
        return None


def _finish(
    tracked: TrackedFunction,
    pending: Pending | None,
    args: tuple,
    kwds: dict,
    count: int,
    started: float,
    caller: FrameType,
    **outcome: Any,
) -> Pending:
    """Records the call (finish never raises); a quiet call's record is made here."""
    if pending is None:
        index = len(tracked.calls) + tracked.calls_not_listed
        pending = Pending(index, None, list(args), kwds, 0, count, started)
    tracked.finish(pending, caller=caller, **outcome)
    return pending


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
