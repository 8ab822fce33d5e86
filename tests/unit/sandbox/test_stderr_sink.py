"""The sandbox's stderr sink: a pipe whose tail the host keeps, and nothing a job can grow."""

from __future__ import annotations

import ctypes
import errno
import os
import time

from playground.sandbox.stderr_sink import KEEP_BYTES, StderrSink


def written(sink: StderrSink, data: bytes) -> None:
    os.write(sink.fileno(), data)


def settled(sink: StderrSink, end: str) -> str:
    deadline = time.monotonic() + 5
    while not sink.tail().endswith(end) and time.monotonic() < deadline:
        time.sleep(0.01)
    return sink.tail()


def test_the_tail_is_the_last_bytes_written() -> None:
    sink = StderrSink()
    try:
        for _ in range(40):  # past KEEP_BYTES in all: only the end is kept
            written(sink, b"x" * 4096)
        written(sink, b"Traceback: the end\n")
        assert settled(sink, "the end") == ("x" * 4000 + "Traceback: the end\n")[-4000:].strip()
        assert len(sink._kept) <= KEEP_BYTES
        assert sink.tail(10) == ": the end"  # the last 10 bytes, its newline stripped
    finally:
        sink.close()


def test_a_writer_cannot_allocate_blocks_through_it() -> None:
    """fallocate (even FALLOC_FL_KEEP_SIZE, which RLIMIT_FSIZE never sees) has nothing to grow."""
    sink = StderrSink()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
        assert libc.fallocate(sink.fileno(), 1, 0, 1 << 30) == -1
        assert ctypes.get_errno() == errno.ESPIPE
    finally:
        sink.close()


def test_close_stops_its_reader_while_a_writer_still_holds_the_pipe() -> None:
    sink = StderrSink()
    survivor = os.dup(sink.fileno())  # a process of the job that outlived it
    try:
        sink.handed_over()
        sink.close()
        assert not sink._reader.is_alive()
        assert sink.tail() == ""
    finally:
        os.close(survivor)
