"""Who made a tf.function, read from the stack when TF's Function is created, and where the
user's own code was at that moment or at a call. Pure Python: frames and file names only.

A library's function is named by the library and its public entry point, the innermost frame
of the library whose name a person could have called or read about: Keras's
`TensorFlowTrainer.make_train_function`, not its private `_make_function`; tf.data's
`DatasetV2.map`, not the wrapper class that traces for it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import FrameType

# tf.function itself and the decorators TF wraps it in: never a maker.
_MACHINERY = (
    os.sep + os.path.join("polymorphic_function", "polymorphic_function.py"),
    os.sep + os.path.join("tensorflow", "python", "util") + os.sep,
)
# TF's own packages, by the name a person knows them by.
_TF_PARTS = (
    (os.path.join("tensorflow", "python", "data") + os.sep, "tf.data"),
    (os.path.join("tensorflow", "python", "saved_model") + os.sep, "tf.saved_model"),
    (os.path.join("tensorflow", "python", "checkpoint") + os.sep, "tf.train.Checkpoint"),
    (os.path.join("tensorflow", "python", "distribute") + os.sep, "tf.distribute"),
    (os.path.join("tensorflow", "python", "keras") + os.sep, "tf.keras"),
)
_PACKAGE_ROOTS = ("site-packages" + os.sep, "dist-packages" + os.sep)
_DEPTH = 40  # frames looked at, at most: a maker is near the creation


class UserFiles:
    """Which files are the user's own, and how a report names them: one pasted file in script
    mode; in trace mode, every file under the program's folder that is not an installed
    package's (site-packages inside a virtual environment there is not the user's)."""

    def __init__(self, contains: Callable[[str], bool], name: Callable[[str], str] = lambda f: f) -> None:
        self.contains, self.name = contains, name

    @classmethod
    def one(cls, filename: str) -> UserFiles:
        return cls(lambda f: f == filename)

    @classmethod
    def under(cls, root: str, not_under: tuple[str, ...] = (), cells: bool = False) -> UserFiles:
        """cells: a notebook's cells are the user's too (IPython compiles each into a file of
        its own: /tmp/ipykernel_<pid>/<hash>.py, or <ipython-input-...>)."""
        root = os.path.realpath(root) + os.sep
        skipped = tuple(os.path.realpath(p) + os.sep for p in not_under)
        cache: dict[str, bool] = {}

        def contains(filename: str) -> bool:
            if filename not in cache:
                path = os.path.realpath(filename) if os.path.isabs(filename) else ""
                cache[filename] = (
                    path.startswith(root)
                    and not any(r in path for r in _PACKAGE_ROOTS)
                    and not path.startswith(skipped)
                ) or (cells and _notebook_cell(filename))
            return cache[filename]

        return cls(contains, lambda f: os.path.relpath(os.path.realpath(f), root))

    def __call__(self, filename: str) -> bool:
        return self.contains(filename)


def _notebook_cell(filename: str) -> bool:
    return filename.startswith("<ipython-input-") or os.sep + "ipykernel_" in filename


def call_site(
    frame: FrameType | None, users: UserFiles, depth: int = 12
) -> tuple[int | None, str, list[str]]:
    """Where the user's code made a call: the innermost line of theirs (train.py:42), and the
    user's frames above it, innermost first ("train.py:42 in train_step")."""
    stack: list[str] = []
    line, site = None, ""
    for _ in range(_DEPTH * 4):
        if frame is None or len(stack) >= depth:
            break
        filename = frame.f_code.co_filename
        if users(filename):
            where = f"{users.name(filename)}:{frame.f_lineno}"
            if line is None:
                line, site = frame.f_lineno, where
            stack.append(f"{where} in {frame.f_code.co_name}")
        frame = frame.f_back
    return line, site, stack


def creator_file(frame: FrameType | None) -> str:
    """The file that asked for a tf.function: the first frame above tf.function's own."""
    frame = _outside_machinery(frame)
    return frame.f_code.co_filename if frame is not None else ""


def maker_of(frame: FrameType | None, kind: str, is_users: Callable[[str], bool]) -> str:
    """'library: entry point' for a tf.function made by a library; kind is TF's class name
    (a restored SavedModel's functions are RestoredFunction)."""
    if kind == "RestoredFunction":
        return "tf.saved_model.load"
    frame = _outside_machinery(frame)
    fallback = None
    for _ in range(_DEPTH):
        if frame is None or is_users(frame.f_code.co_filename):
            break
        fallback = fallback or frame
        if _public(_qualname(frame)):
            return f"{library_of(frame.f_code.co_filename)}: {_qualname(frame)}"
        frame = frame.f_back
    if fallback is None:
        return "?"
    return f"{library_of(fallback.f_code.co_filename)}: {_qualname(fallback)}"


def library_of(filename: str) -> str:
    """keras, tf.data, numpy... from a library file's path; the file's name when it is none."""
    for part, name in _TF_PARTS:
        if part in filename:
            return name
    for root in _PACKAGE_ROOTS:
        at = filename.rfind(root)
        if at >= 0:
            top = filename[at + len(root) :].split(os.sep, 1)[0]
            return "tensorflow" if top == "tensorflow" else top.removesuffix(".py")
    return os.path.basename(filename)


def _outside_machinery(frame: FrameType | None) -> FrameType | None:
    while frame is not None and any(part in frame.f_code.co_filename for part in _MACHINERY):
        frame = frame.f_back
    return frame


def _qualname(frame: FrameType) -> str:
    return getattr(frame.f_code, "co_qualname", frame.f_code.co_name)  # co_qualname: 3.11+


def _public(qualname: str) -> bool:
    """A name a person calls: no `<locals>`, `<lambda>`, dunder or leading underscore."""
    if "<" in qualname:
        return False
    return not any(part.startswith("_") for part in qualname.split("."))
