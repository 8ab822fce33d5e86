"""Hostile jobs that speak the worker's protocol themselves, for the tests and
bench/attack_bench.py: the user's code runs in the worker's process, so it can write on the
report pipe like the engine does."""

from __future__ import annotations

# The job's side: every write-only pipe above stdio is the protocol pipe (fd 0 reads the job,
# 1 and 2 are the capture's file, the keeper's exit line comes from another process).
SAY = """
import fcntl, json, os, stat
def _pipes():
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode) and \\
                    fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                yield fd
        except OSError:
            pass
def say(data):
    for fd in list(_pipes()):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
def report(**fields):
    base = {"tensorflow_version": "2.21.0", "device": "CPU", "status": "ok", "error": None,
            "stdout": "", "warnings": [], "functions": []}
    say((json.dumps({"event": "report", "report": {**base, **fields}}) + "\\n").encode())
"""

# Each class of forged message, as a job's source (SAY first). Shared with the bench.
FORGED_30MB = SAY + ('say(b\'{"event": "report", "report": {"x": [\' + b"{}," * 10_000_000 + b"{}]}}\\n")\n')
NEWLINE_FLOOD = SAY + (
    "for fd in _pipes():\n"
    "    fcntl.fcntl(fd, 1031, 1 << 20)       # F_SETPIPE_SZ\n"
    "while True:\n"
    "    say(b'\\n' * (1 << 19) + b'{}\\n' * (1 << 17))\n"
)
FORGED_DURATION = SAY + "import time\ntime.sleep(1.5)\nreport(duration_s=0.01)\n"
EVENT_FLOOD = SAY + (
    'line = b\'{"event": "timing", "function": "f", "mode": "m", '
    '"progress": 0.5}\\n\'\n'
    "for _ in range(20):\n"
    "    say(line * 40_000)\n"  # 800,000 events, 54 MB
    "report(stdout='done')\n"
)


class FloodingExecutor:
    """Stands in for the pool at the executor seam (PLAYGROUND_UI_EXECUTOR): a job whose source
    is `# flood N` sends N progress events as fast as its caller takes them, then a report. When
    the caller raises Cancelled (its client has gone), it writes "cancelled" to the file
    $PLAYGROUND_TEST_MARKER names."""

    def submit(self, job, on_event=None, control=None):
        import os

        from playground.contract.errors import Cancelled
        from playground.contract.job import Report

        count = int(job.source.split()[-1]) if job.source.startswith("# flood") else 0
        emit = on_event or (lambda event: None)
        try:
            emit({"event": "started"})
            for index in range(count):
                emit({"event": "timing", "function": "f", "mode": "graph", "progress": index / count})
        except Cancelled:
            with open(os.environ["PLAYGROUND_TEST_MARKER"], "w") as marker:
                marker.write("cancelled")
            raise
        return Report("2.21.0", "CPU", "ok", None, f"sent {count}", [], [])

    def close(self) -> None:
        pass


def flooding() -> FloodingExecutor:
    return FloodingExecutor()
