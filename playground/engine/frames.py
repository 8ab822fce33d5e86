"""Decides what a user may see of a stack: their own frames and TensorFlow's, as plain Python
would show them, never the worker's or the engine's, and no host paths.

Tracebacks are not the only stacks: TF puts whole Python stacks into its messages ("... was
defined here:", "defined at (most recent call last):"), taken while the worker was running the
user's code, so the same filter applies to every text that reaches the user.
"""

from __future__ import annotations

import io
import os
import re
import site
import sys
import sysconfig
import traceback

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../playground
_INTERNAL_FILES = (
    "<frozen runpy>",
    "<frozen importlib._bootstrap>",
    "<frozen importlib._bootstrap_external>",
)
_FRAME = re.compile(r'^(?P<indent>\s*)File "(?P<file>[^"]+)", line \d+')
_CALLERS: set[str] = set()  # scripts that run the engine in their own process (hide_caller)


def _path_prefixes() -> list[tuple[str, str]]:
    """Host directories and the neutral names shown in their place, longest first."""
    pairs = [(p, "site-packages") for p in site.getsitepackages() + [site.getusersitepackages()]]
    pairs += [
        (sysconfig.get_paths()["stdlib"], f"python{sys.version_info[0]}.{sys.version_info[1]}"),
        (os.path.dirname(_PACKAGE), ""),
        (sys.prefix, "python"),
        (sys.base_prefix, "python"),
    ]
    seen, out = set(), []
    for path, name in sorted(pairs, key=lambda p: -len(p[0])):
        path = os.path.realpath(path) if os.path.isabs(path) else path
        for variant in {path, path.rstrip("/")}:
            if len(variant) > 1 and variant not in seen:
                seen.add(variant)
                out.append((variant + "/", name + "/" if name else ""))
    return sorted(out, key=lambda p: -len(p[0]))


_PREFIXES = _path_prefixes()


def internal(filename: str) -> bool:
    """A frame of the worker, the engine or the interpreter's start-up, not of the user's run."""
    if filename in _INTERNAL_FILES:
        return True
    path = os.path.abspath(filename) if os.path.isabs(filename) else filename
    return path.startswith(_PACKAGE + os.sep) or path in _CALLERS


def hide_caller(filename: str) -> None:
    """A script outside the package that runs the engine in its own process (the gallery's
    recorder): its frames are the engine's too, and TF's "The op is created at:" would show
    them to every reader of a recording."""
    _CALLERS.add(os.path.abspath(filename))


def hide_paths(text: str) -> str:
    for prefix, name in _PREFIXES:
        if prefix in text:
            text = text.replace(prefix, name)
    return text


def clean(text: str) -> str:
    """Drops the stack entries of internal frames (a File line and the source lines under it)
    and hides host paths."""
    if not text:
        return text
    kept: list[str] = []
    skipping_deeper_than: int | None = None
    for line in text.splitlines(True):
        match = _FRAME.match(line)
        if match:
            skipping_deeper_than = len(match.group("indent")) if internal(match.group("file")) else None
            if skipping_deeper_than is not None:
                continue
        elif skipping_deeper_than is not None:
            indent = len(line) - len(line.lstrip())
            if indent > skipping_deeper_than and line.strip():
                continue  # the source line (and carets) of a dropped frame
            skipping_deeper_than = None
        kept.append(line)
    return hide_paths("".join(kept))


def format_exception(exc: BaseException) -> str:
    """The traceback Python would print for exc, with only the user's and TF's frames."""
    try:
        printed = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
        if sys.version_info < (3, 12):
            _suggest(printed, exc, set())
        text = "".join(printed.format())
    except Exception:  # noqa: BLE001 - a user's exception whose str() raises
        text = f"{type(exc).__name__}\n"
    return clean(text)


def _suggest(printed: traceback.TracebackException, exc: BaseException | None, seen: set[int]) -> None:
    """Python 3.10 and 3.11 print "Did you mean: 'reset_state'?" from C only, which the
    traceback module does not (3.12 does): ask the interpreter's own printer for the line, on a
    bare copy of the error, for each exception in the chain."""
    if exc is None or id(exc) in seen:
        return
    seen.add(id(exc))
    hint = _interpreter_hint(exc)
    if hint:
        printed._str = f"{printed._str}{hint}"  # type: ignore[attr-defined]  # where 3.12 puts it
    for chained, original in ((printed.__cause__, exc.__cause__), (printed.__context__, exc.__context__)):
        if chained is not None:
            _suggest(chained, original, seen)


def suggestion(exc: BaseException) -> str:
    """ ". Did you mean: 'reset_state'?" as Python prints it after exc's message, or ""."""
    try:
        if sys.version_info >= (3, 12):
            printed = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
            text = str(exc)
            return printed._str[len(text) :] if printed._str.startswith(text) else ""
        return _interpreter_hint(exc)
    except Exception:  # noqa: BLE001 - a user's exception whose str() raises
        return ""


def _interpreter_hint(exc: BaseException) -> str:
    if type(exc) is AttributeError and getattr(exc, "obj", None) is not None:
        bare: BaseException = AttributeError(name=exc.name, obj=exc.obj)
    elif type(exc) is NameError and getattr(exc, "name", None):
        bare = NameError(name=exc.name).with_traceback(exc.__traceback__)  # the frame's names
    else:
        return ""
    printed, saved = io.StringIO(), sys.stderr
    sys.stderr = printed
    try:
        sys.__excepthook__(type(bare), bare, bare.__traceback__)
    finally:
        sys.stderr = saved
    last = printed.getvalue().rstrip("\n").rsplit("\n", 1)[-1]
    name = type(exc).__name__
    return last[len(name) :] if last.startswith(name + ". ") else ""
