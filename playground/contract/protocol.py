"""The worker's protocol: what a sandboxed worker may say to the host, and the host's decoder.

The user's code runs in the worker's process and can write anything on the protocol pipe
(it finds it under /proc/self/fd), so every byte is hostile input. One JSON object a line:

    worker -> host   Ready          once warm, before any user code
                     Environment    TF version and device, before the user's code runs
                     CallStarted, CallFinished, TimingProgress    while the job runs
                     FileChunk      an export's files, base64 (sandbox/exports.py)
                     ReportMessage  the Report, last                  | Crash   the engine failed
    keeper -> host   Exit           how a forked worker ended (sandbox/zygote.py)

`LineReader` splits the stream in time linear in its size, under a byte budget and a line
cap; `parse` refuses a line whose JSON would cost more to build than its bound (counted on the
bytes, before json.loads builds anything) and decodes it into one of the types above with
contract/decode.py. A line that is not a protocol message at all is dropped; one that claims to
be a message and does not fit its type raises MalformedMessage.

Events: whoever waits on a job (the page, the API's stream, the CLI, the magic) receives its
progress through an `OnEvent` callback, each event one of the types here as a dict with an
"event" key (`as_event`). The progress kinds come from the worker; the host's own kinds
(Queued, Started, Demoted, StartingVersion, Accepted, Retry) have no entry in KINDS, so a
worker cannot send them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .decode import Bounds, DecodeError, decode, outside_strings
from .job import MAX_CITED_CHARS, MAX_CITED_LINES, Report, TraceRun

EVENT_LINE_BYTES = 1 << 20  # an export chunk is 512 KiB, 683 KiB as base64
REPORT_LINE_BYTES = 16 << 20  # a real report is well under 1 MiB; HLO makes it longer
JOB_BYTES = 64 << 20  # all a job may send, exports included (stopped past it)
JOB_LINES = 1_000_000  # lines a job may send: a flood of tiny ones costs per line
JSON_ITEMS = 400_000  # values in one message: bounds what json.loads builds

# Report fields whose text may be long; every other string is at most Bounds.text_chars.
LONG_TEXT = frozenset(
    {"stdout", "traceback", "converted_code", "hlo", "dot", "listing", "message", "source_code_line"}
)
REPORT_BOUNDS = Bounds(long_text=LONG_TEXT, list_items=100_000)
EVENT_BOUNDS = Bounds(
    text_chars=4 << 10,
    long_text_chars=EVENT_LINE_BYTES,
    long_text=frozenset({"data"}),
    list_items=100,
    dict_items=100,
)

MESSAGE_START = b'{"event": "'  # how json.dumps begins every message


class MalformedMessage(ValueError):
    """A line that claims to be a protocol message and is not a valid one; ends the job."""


class StreamTooLarge(OverflowError):
    """The job sent more than JOB_BYTES, or a line longer than REPORT_LINE_BYTES."""


@dataclass(frozen=True)
class Ready:
    pid: int = 0
    gpus: int = 0
    pid_namespace: int = 0


@dataclass(frozen=True)
class Environment:
    tensorflow_version: str = "unknown"
    device: str = "unknown"
    environment: dict[str, Any] | None = None


@dataclass(frozen=True)
class CallStarted:
    function: str
    index: int
    args: str = ""


@dataclass(frozen=True)
class CallFinished:
    function: str
    index: int
    retraced: bool = False
    reason: str | None = None
    tracing_count: int = 0
    error: str | None = None


@dataclass(frozen=True)
class TimingProgress:
    function: str = ""
    mode: str = ""
    progress: float = 0.0


@dataclass(frozen=True)
class FileChunk:
    path: str
    data: str = ""


@dataclass(frozen=True)
class Crash:
    type: str = ""
    message: str = ""
    traceback: str = ""


@dataclass(frozen=True)
class Exit:
    signal: int | None = None
    code: int | None = None


@dataclass(frozen=True)
class ReportMessage:
    report: Report


Message = (
    Ready
    | Environment
    | CallStarted
    | CallFinished
    | TimingProgress
    | FileChunk
    | Crash
    | Exit
    | ReportMessage
)
KINDS: dict[str, type] = {
    "ready": Ready,
    "environment": Environment,
    "call_started": CallStarted,
    "call_finished": CallFinished,
    "timing": TimingProgress,
    "file": FileChunk,
    "crash": Crash,
    "exit": Exit,
    "report": ReportMessage,
}


# The host's own events, never decoded from a worker.
@dataclass(frozen=True)
class Queued:
    position: int  # jobs ahead of this one
    eta_s: float | None = None
    behind_own_run: bool = False  # waits for the same client's running job (runs/fairness.py)


@dataclass(frozen=True)
class Started:
    """A worker took the job."""


@dataclass(frozen=True)
class Demoted:
    after_s: float  # still running after this long: now at the lowest CPU priority


@dataclass(frozen=True)
class StartingVersion:
    tf_version: str  # the first job of this TensorFlow version starts its pool


@dataclass(frozen=True)
class Accepted:
    actor: str  # Ray: a node's pool actor took the job
    node: str
    pid: int


@dataclass(frozen=True)
class Retry:
    attempt: int  # Ray: its node or actor was lost; the job runs again
    reason: str


HOST_KINDS: dict[str, type] = {
    "queued": Queued,
    "started": Started,
    "demoted": Demoted,
    "starting_version": StartingVersion,
    "accepted": Accepted,
    "retry": Retry,
}
NAMES = {cls: name for name, cls in {**KINDS, **HOST_KINDS}.items()}
# What a page or an API client may be shown while a job runs; the rest is for the host.
PROGRESS = (CallStarted, CallFinished, TimingProgress)
OnEvent = Callable[[dict[str, Any]], None]


def as_event(message: Any) -> dict[str, Any]:
    """A message or a host event as the event dict an OnEvent receives."""
    fields = {name: getattr(message, name) for name in message.__dataclass_fields__}
    return {"event": NAMES[type(message)], **fields}


def parse(line: bytes, skip: tuple[type, ...] = ()) -> Message | None:
    """One line as a typed message; None for what is no message at all (stray bytes a user's
    code wrote) and for a kind in `skip` (left unparsed: a flood costs a regex match a line);
    MalformedMessage for a message that does not fit its type or bounds."""
    line = line.strip()
    if not line.startswith(b"{"):
        return None
    kind_cls, bounds = _kind_of(line)
    if kind_cls is None or kind_cls in skip:
        return None
    if kind_cls is not ReportMessage and len(line) > EVENT_LINE_BYTES:
        raise MalformedMessage(f"an event of {len(line)} bytes")
    data = bounded_json(line)
    if not isinstance(data, dict):
        return None
    data.pop("event", None)
    try:
        return decode(kind_cls, data, bounds)
    except DecodeError as error:
        raise MalformedMessage(str(error)[:300]) from None


def bounded_json(text: bytes) -> Any:
    """json.loads of untrusted bytes, with its cost bounded before it builds anything: at most
    JSON_ITEMS values, and nesting too deep for the parser a MalformedMessage, not a crash."""
    structure = outside_strings(text)
    items = structure.count(b",") + structure.count(b"{") + structure.count(b"[")
    if items > JSON_ITEMS:
        raise MalformedMessage(f"more than {JSON_ITEMS} values in one message")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise MalformedMessage(f"not JSON ({type(error).__name__})") from None


def decode_report(text: bytes) -> Report:
    """A Report from untrusted bytes (a saved report a visitor opens), at most REPORT_LINE_BYTES
    (the caller's to refuse, in its reader's words): the value and field checks a worker's
    report meets, and trace mode's cited lines held to the bounds trace mode writes them in."""
    try:
        report = decode(Report, bounded_json(text), REPORT_BOUNDS)
        cited_lines_fit(report.trace)
        return report
    except DecodeError as error:
        raise MalformedMessage(str(error)[:300]) from None


def cited_lines_fit(trace: TraceRun | None) -> None:
    """DecodeError unless trace mode's program name and cited lines are what it writes: at most
    MAX_CITED_LINES single lines of at most MAX_CITED_CHARS, each at a line number of a file."""
    if trace is None:
        return
    if len(trace.lines) > MAX_CITED_LINES:
        raise DecodeError("trace.lines", f"more than {MAX_CITED_LINES} items")
    texts = [("trace.program", trace.program)]
    for i, cited in enumerate(trace.lines):
        if not 0 < cited.line < 10_000_000:
            raise DecodeError(f"trace.lines[{i}].line", "not a line number")
        if not cited.file.strip():
            raise DecodeError(f"trace.lines[{i}].file", "empty")
        texts += [(f"trace.lines[{i}].file", cited.file), (f"trace.lines[{i}].text", cited.text)]
    for where, text in texts:
        if len(text) > MAX_CITED_CHARS:
            raise DecodeError(where, f"longer than {MAX_CITED_CHARS} characters")
        if any(c in text for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
            raise DecodeError(where, "more than one line")


def _kind_of(line: bytes) -> tuple[type | None, Bounds]:
    """The message's kind from its first key, which every worker writes first ("event"), so a
    huge line is judged before it is parsed."""
    match = re.match(rb'\{\s*"event"\s*:\s*"([a-z_]{1,20})"', line)
    if match is None:
        return None, EVENT_BOUNDS
    cls = KINDS.get(match.group(1).decode())
    return cls, (REPORT_BOUNDS if cls is ReportMessage else EVENT_BOUNDS)


class LineReader:
    """Splits a byte stream into the lines that can be messages, in linear time: a chunk is
    split once, in C, and only lines that start as every message does (`{"event": "`, as
    json.dumps writes it) are kept, so a flood of stray lines costs no Python per line.
    Raises StreamTooLarge past the job's byte or line budget, or when a line outgrows
    line_cap."""

    def __init__(
        self, budget: int = JOB_BYTES, line_cap: int = REPORT_LINE_BYTES, line_budget: int = JOB_LINES
    ) -> None:
        self.budget, self.line_cap, self.line_budget = budget, line_cap, line_budget
        self.received = self.lines = 0
        self._parts: list[bytes] = []  # a line whose newline has not come yet
        self._partial = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        self.received += len(chunk)
        self.lines += chunk.count(b"\n")
        if self.received > self.budget or self.lines > self.line_budget:
            raise StreamTooLarge(f"more than {self.budget} bytes or {self.line_budget} lines")
        self._parts.append(chunk)
        self._partial += len(chunk)
        lines: list[bytes] = []
        if b"\n" in chunk:
            *lines, rest = b"".join(self._parts).split(b"\n")
            self._parts, self._partial = [rest], len(rest)
        if self._partial > self.line_cap:
            raise StreamTooLarge(f"a line longer than {self.line_cap} bytes")
        return [line for line in lines if line.startswith(MESSAGE_START)]
