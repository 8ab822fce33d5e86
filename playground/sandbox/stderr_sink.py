"""A sandboxed process's stderr: a pipe the host drains, keeping only the last few KiB.

It was a file on the host's disk, and the job held it as its fd 2: `fallocate` on it grew that
file to 1 GiB (RLIMIT_FSIZE bounds writes, not allocation), deleted but held. A pipe has no
size a job can grow, and the host keeps at most KEEP_BYTES of what comes through it.

    sink = StderrSink()
    Popen(..., stderr=sink)       # or send sink.fileno() to a zygote with a fork
    sink.handed_over()            # the host's copy of the write end goes
    sink.tail(4000)               # the last bytes, as text
    sink.close()
"""

from __future__ import annotations

import os
import threading

from .readable import readable

KEEP_BYTES = 64 << 10  # far more than any tail shown (4,000 bytes), far less than a disk
POLL_S = 0.5  # how soon a closed sink's reader notices, if a writer outlives the job


class StderrSink:
    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._drain, name="stderr-sink", daemon=True)
        self._reader.start()

    def fileno(self) -> int:
        """The write end, for the sandboxed process (Popen's stderr=, or sent with a fork)."""
        return self._write

    def handed_over(self) -> None:
        """The process has its own copy now: the host's goes, so EOF comes when the job's do."""
        self._close_write()

    def tail(self, size: int = 4000) -> str:
        with self._lock:
            return bytes(self._kept[-size:]).decode("utf-8", "replace").strip()

    def close(self) -> None:
        """Stops the reader (within POLL_S) and frees both ends; tail() still answers."""
        self._closed.set()
        self._close_write()
        if self._reader is not threading.current_thread():
            self._reader.join(POLL_S * 2)

    def _drain(self) -> None:
        try:
            while not self._closed.is_set():
                if not readable(self._read, POLL_S):
                    continue
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    return
                with self._lock:
                    self._kept += chunk
                    del self._kept[:-KEEP_BYTES]
        except OSError:
            return
        finally:
            _close(self._read)

    def _close_write(self) -> None:
        with self._lock:
            fd, self._write = self._write, -1
        _close(fd)


def _close(fd: int) -> None:
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass
