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

from ..errors import SourceError
from ..source_text import check_text
from ..job import ErrorInfo

MODULE_NAME = "playground_user"


def register(source: str, filename: str) -> None:
    # mtime None: linecache.checkcache() keeps entries it cannot stat on disk.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def compile_source(source: str, filename: str) -> types.CodeType:
    check_text(source)
    register(source, filename)
    try:
        return compile(source, filename, "exec")
    except SyntaxError as e:
        raise SourceError(f"SyntaxError: {e.msg} (line {e.lineno})") from e


def new_module(filename: str) -> types.ModuleType:
    # No __file__: AutoGraph's _fix_linecache_record reloads a module's file from disk when
    # __file__ matches, which evicts the linecache entry of a file that is not there.
    module = types.ModuleType(MODULE_NAME)
    module.__dict__["__source_file__"] = filename
    sys.modules[MODULE_NAME] = module
    return module


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
            digits = text[at + len(marker):].split(",", 1)[0].split()[0]
            line = int(digits) if digits.isdigit() else None
    return line


MAX_MESSAGE = 4000


def error_info(exc: BaseException, filename: str) -> ErrorInfo:
    message = str(exc).strip() or type(exc).__name__
    if len(message) > MAX_MESSAGE:  # keep both ends: TF's own error is at the end
        message = message[:1000] + "\n  ...\n" + message[-(MAX_MESSAGE - 1000):]
    return ErrorInfo(type=type(exc).__name__, message=message, line=user_line(exc, filename))
