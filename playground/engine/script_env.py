"""What the user's code sees of the process is plain Python's, not the engine's: the recursion
budget of a script's own first frame, and TF's logger as TF configured it.

Each piece is a context manager around the user's code; it leaves nothing behind afterwards.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tensorflow.python.eager.polymorphic_function import polymorphic_function

_PROBE = """
def _depth(n=0):
    try:
        return _depth(n + 1)
    except RecursionError:
        return n
headroom = _depth()
"""


def headroom() -> int:
    """How many more calls fit on the stack in the caller's frame, as the user's code would meet
    them there: the probe is module code run with exec, as the user's file is. C-level entries
    count too, so the frames on the stack alone do not tell. Compiled afresh each time, as the
    user's code is: once CPython's adaptive interpreter has specialised a recursion, the count
    moves. + 1: this function's own frame, which the user's code does not have under it."""
    probe: dict[str, Any] = {}
    exec(compile(_PROBE, "<headroom>", "exec", dont_inherit=True), probe)  # noqa: S102
    return probe["headroom"] + 1


# The probe run at module level of a plain `python file.py` measures limit - PLAIN_USED.
PLAIN_USED = 2
_real_get, _real_set = sys.getrecursionlimit, sys.setrecursionlimit
_ours = 0  # the engine's frames under or among the user's, added to the real limit
counting = False  # inside recursion_budget: the observer's frames are counted (engine_frames)


def _raise_by(frames: int) -> None:
    global _ours
    _ours += frames
    _real_set(_real_get() + frames)


def _getrecursionlimit() -> int:
    return _real_get() - _ours


def _setrecursionlimit(limit: int) -> None:
    if not isinstance(limit, int) or limit < 1:
        _real_set(limit)  # Python's own TypeError or ValueError
        return
    try:
        _real_set(limit + _ours)
    except RecursionError as error:  # Python's own words, in the script's units
        depth = re.search(r"recursion depth (\d+)", str(error))
        if depth is None:
            raise
        raise RecursionError(
            f"cannot set the recursion limit to {int(limit)} at the recursion depth "
            f"{int(depth.group(1)) - _ours}: the limit is too low"
        ) from None


_getrecursionlimit.__doc__, _setrecursionlimit.__doc__ = _real_get.__doc__, _real_set.__doc__


@contextmanager
def recursion_budget(room: int) -> Iterator[None]:
    """Plain Python's recursion limit, counted from the user's first frame.

    Under `python file.py` the module's frame is the first on the stack; here the engine's
    frames sit under it. The real limit is raised by exactly their number, and
    sys.getrecursionlimit/sys.setrecursionlimit speak in the script's units, so a deep recursion
    fails at the depth it fails at in plain Python, and a script that reads or sets the limit
    sees the numbers it would see there. room: headroom() where the user's code is about
    to run."""
    global counting
    limit = _real_get()
    below = max(0, (limit - PLAIN_USED) - room)
    _raise_by(below)
    sys.getrecursionlimit, sys.setrecursionlimit = _getrecursionlimit, _setrecursionlimit
    counting = True
    try:
        yield
    finally:
        counting = False
        kept = _getrecursionlimit()
        _raise_by(-below)
        sys.getrecursionlimit, sys.setrecursionlimit = _real_get, _real_set
        # A limit the script raised holds for the rest of the run (the entry's calls next);
        # one it lowered does not bind the engine's own frames.
        _real_set(max(limit, kept + _ours))


@contextmanager
def recursion_limit_restored() -> Iterator[None]:
    """Around a whole run: a limit the script changed is the script's, and the next run in
    this process (in-process runs, tests) starts from the engine's own."""
    limit = _real_get()
    try:
        yield
    finally:
        _real_set(limit)


def engine_frames(change: int) -> None:
    """An engine frame among the user's (a hook on TF's Function.__call__) costs the user's code
    no depth: +1 when it enters, -1 when it leaves."""
    _raise_by(change)


class _RecordingLogging:
    """TF's tf_logging module as polymorphic_function sees it, keeping each warning's text.

    A handler on TF's logger would be in the user's view (tf.get_logger().handlers)."""

    def __init__(self, real: Any, keep: Callable[[str], None]) -> None:
        self._real, self._keep = real, keep

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def warning(self, message: Any, *args: Any, **kwargs: Any) -> Any:
        self._keep(str(message) % args if args else str(message))
        return self._real.warning(message, *args, **kwargs)


@contextmanager
def retracing_warnings() -> Iterator[list[str]]:
    """TF logs 'N out of the last M calls ... triggered tf.function retracing' at most twice per
    Python function; keep the text to show it (the engine counts traces itself)."""
    messages: list[str] = []
    real = polymorphic_function.logging
    polymorphic_function.logging = _RecordingLogging(
        real, lambda text: messages.append(text) if "retracing" in text else None
    )
    try:
        yield messages
    finally:
        polymorphic_function.logging = real
