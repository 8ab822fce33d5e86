"""Captures everything a run prints (Python print, tf.print, C++ logs) at the file-descriptor level.

tf.print writes from C++ straight to fd 2, so swapping sys.stdout is not enough. All output goes
to one temp file; each call remembers its byte offsets, so nested segments (a script calling
several functions) need no nesting of redirections.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager

DEFAULT_OUTPUT_CAP = 1 << 20  # 1 MiB kept per run; the rest is dropped


class OutputCapture:
    def __init__(
        self, cap_bytes: int = DEFAULT_OUTPUT_CAP, clean: Callable[[str], str] = lambda text: text
    ) -> None:
        self.cap_bytes = cap_bytes
        self.clean = clean  # applied to what is read back, never to the file
        self._file = tempfile.TemporaryFile()
        self._saved: list[int] = []
        self.truncated = False

    def offset(self) -> int:
        _flush()
        return os.fstat(self._file.fileno()).st_size

    def text(self, start: int = 0, end: int | None = None) -> str:
        end = self.offset() if end is None else end
        length = end - start
        if length > self.cap_bytes:
            self.truncated = True
            length = self.cap_bytes
        data = os.pread(self._file.fileno(), length, start)
        return self.clean(data.decode("utf-8", "replace"))

    @contextmanager
    def redirect(self) -> Iterator[OutputCapture]:
        _flush()
        self._saved = [os.dup(1), os.dup(2)]
        os.dup2(self._file.fileno(), 1)
        os.dup2(self._file.fileno(), 2)
        _line_buffered_c_stdout()
        # sys.stdout may not be fd 1 (pytest, notebooks): point Python's streams at fds 1 and 2.
        streams = sys.stdout, sys.stderr
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
        # Log handlers made earlier hold the old stream objects (TF's warnings write through
        # one): where those are not fds 1 and 2 (a notebook's), they follow the swap.
        moved = _stream_handlers(streams)
        for handler, stream in moved:
            handler.setStream(sys.stdout if stream is streams[0] else sys.stderr)
        try:
            yield self
        finally:
            _flush()
            for handler, stream in moved:
                handler.setStream(stream)
            sys.stdout, sys.stderr = streams
            os.dup2(self._saved[0], 1)
            os.dup2(self._saved[1], 2)
            for fd in self._saved:
                os.close(fd)

    def close(self) -> None:
        self._file.close()


def _stream_handlers(streams: tuple) -> list[tuple[logging.StreamHandler, object]]:
    """Every logging handler writing to one of `streams`, with that stream."""
    loggers = [logging.getLogger()] + [
        logger
        for logger in list(logging.Logger.manager.loggerDict.values())
        if isinstance(logger, logging.Logger)
    ]
    return [
        (handler, handler.stream)
        for logger in loggers
        for handler in logger.handlers
        if isinstance(handler, logging.StreamHandler) and any(handler.stream is stream for stream in streams)
    ]


_LIBC = ctypes.CDLL(None)
_IOLBF = 1


def _line_buffered_c_stdout() -> None:
    """C's stdout as a terminal has it: each printed line lands in order with Python's."""
    try:
        _LIBC.setvbuf(ctypes.c_void_p.in_dll(_LIBC, "stdout"), None, _IOLBF, 0)
    except (ValueError, AttributeError):  # a libc without the symbol: buffered, flushed
        pass


def _flush() -> None:
    """Python's buffers, and C's stdio ones: TF's C++ printf (the placer's device placement
    log) sits in a buffer the worker's os._exit would drop, where a plain exit flushes it."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    _LIBC.fflush(None)


class NoCapture:
    """Trace mode's stand-in: the program's output stays on its own terminal."""

    truncated = False

    def offset(self) -> int:
        return 0

    def text(self, start: int = 0, end: int | None = None) -> str:
        return ""
