"""Loads pasted source as a real module, so AutoGraph can read it and tracebacks name user lines.

exec() of a bare string hides the source from inspect, and AutoGraph then silently runs the
function unconverted (InaccessibleSourceCodeError). Registering the text in linecache under the
module's filename fixes that and gives real line numbers in errors and op tracebacks.
"""

from __future__ import annotations

import linecache
import sys
import traceback
import types
from collections.abc import Iterator
from contextlib import contextmanager

from ..contract.errors import SourceError
from ..contract.job import ErrorInfo
from ..contract.source_text import check_text
from .frames import clean, format_exception, suggestion

MODULE_NAME = "playground_user"


def register(source: str, filename: str) -> None:
    # mtime None: linecache.checkcache() keeps entries it cannot stat on disk.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def compile_source(source: str, filename: str) -> types.CodeType:
    check_text(source)
    register(source, filename)
    try:
        # dont_inherit: the user's file gets none of this module's `from __future__` flags
        # (postponed annotations would turn every annotation of theirs into a string).
        return compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as e:  # the engine reports it under Python's own name, line and column
        raise SourceError(f"{type(e).__name__}: {e.msg} (line {e.lineno})") from e


def new_module(filename: str, source: str) -> types.ModuleType:
    """The module the user's file becomes, with the globals an imported module has and no
    others. Its loader serves the pasted text: AutoGraph refreshes linecache for any module
    whose __file__ is a function's file, and linecache asks the loader for source it cannot
    find on disk (without one, it would evict the entry of a file that is not there)."""
    module = types.ModuleType(MODULE_NAME)
    module.__dict__.update(__file__=filename, __cached__=None, __loader__=_SourceLoader(source))
    sys.modules[MODULE_NAME] = module
    return module


class _SourceLoader:
    def __init__(self, source: str) -> None:
        self.source = source

    def get_source(self, name: str) -> str:
        return self.source


@contextmanager
def as_main(module: types.ModuleType) -> Iterator[types.ModuleType]:
    """Makes the module what `python file.py` makes of a script: __main__ (so its
    `if __name__ == "__main__":` block runs), with the globals Python gives __main__
    (__annotations__ among them) and sys.argv naming the file."""
    module.__dict__.update(__name__="__main__", __spec__=None)
    module.__dict__.setdefault("__annotations__", {})
    filename = module.__file__
    assert filename is not None  # new_module() gave it the user's file name
    saved_main, saved_argv = sys.modules.get("__main__"), sys.argv
    sys.modules["__main__"], sys.argv = module, [filename]
    try:
        yield module
    finally:
        sys.argv = saved_argv
        if saved_main is not None:
            sys.modules["__main__"] = saved_main


def user_line(exc: BaseException, filename: str) -> int | None:
    """The innermost line of the user's file in the traceback, or in TF's 'in user code' text."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    if line is None and isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    if line is None:
        marker = f'File "{filename}", line '
        text = str(exc)
        at = text.rfind(marker)
        if at >= 0:
            digits = text[at + len(marker) :].split(",", 1)[0].split()[0]
            line = int(digits) if digits.isdigit() else None
    return line


MAX_MESSAGE = 4000


def error_info(exc: BaseException, filename: str) -> ErrorInfo:
    try:
        message = clean(str(exc).strip() + suggestion(exc)) or type(exc).__name__
    except Exception:  # noqa: BLE001 - a user's exception whose __str__ raises
        message = type(exc).__name__
    if len(message) > MAX_MESSAGE:  # keep both ends: TF's own error is at the end
        message = message[:1000] + "\n  ...\n" + message[-(MAX_MESSAGE - 1000) :]
    column = exc.offset if isinstance(exc, SyntaxError) else None
    tb = format_exception(exc)
    if len(tb) > 4 * MAX_MESSAGE:
        tb = tb[:MAX_MESSAGE] + "\n  ...\n" + tb[-3 * MAX_MESSAGE :]
    return ErrorInfo(
        type=type(exc).__name__, message=message, line=user_line(exc, filename), column=column, traceback=tb
    )
