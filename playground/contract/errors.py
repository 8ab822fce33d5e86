"""The playground's error hierarchy: every error a user can cause, and nothing else.

    PlaygroundError                 base; the UI and CLI catch this and show its message
    ├── SpecError(ValueError)       a malformed shape, unknown dtype or bad call literal
    │   └── TensorTooLargeError     a tensor spec over the element cap, refused before allocating
    ├── SourceError(ValueError)     the pasted source does not compile or fails at import
    ├── EntryError(LookupError)     the --function entry is missing or not callable
    ├── LimitError(RuntimeError)    a service limit (source size, calls per plan, rate, queue full)
    │   ├── WarmingUp               the server has just started: its sandbox is loading TensorFlow
    │   └── Maintenance             the operator has closed the server to new Runs, with a message
    │       └── Restarting          the server is stopping (SIGTERM): no new Runs, or a Run cut short
    ├── SandboxError(RuntimeError)  the sandbox could not run the job at all
    └── Cancelled(RuntimeError)     the client went away; raised from its on_event to stop the job

Each class also subclasses the matching builtin, as AutoGraph's
InaccessibleSourceCodeError(PyCTError, ValueError) does, so callers may catch either.
Anything that is not a PlaygroundError is a bug in the playground and surfaces as one.
"""

from __future__ import annotations


class PlaygroundError(Exception):
    """Base of every error the user can cause; its message is shown as is."""


class SpecError(PlaygroundError, ValueError):
    """A tensor spec, signature or call literal that does not parse."""


class TensorTooLargeError(SpecError):
    """A tensor spec whose element count is over the configured cap."""


class SourceError(PlaygroundError, ValueError):
    """Pasted source that does not compile or raises while loading."""


class EntryError(PlaygroundError, LookupError):
    """An entry function that does not exist or is not callable."""


class LimitError(PlaygroundError, RuntimeError):
    """A service limit was hit; the message says which and what to do, and `retry_after_s`
    when to come back, where the limit knows (the API's Retry-After)."""

    def __init__(self, message: str = "", retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class WarmingUp(LimitError):
    """No Run is taken until the sandbox has imported TensorFlow once (a first Run would pay
    that import); `retry_after_s` is the estimate of the time left."""


class Maintenance(LimitError):
    """The operator's maintenance mode (PLAYGROUND_MAINTENANCE_FILE exists): new Runs are
    refused with the file's text; Runs already started finish."""


class Restarting(Maintenance):
    """The server is stopping (a SIGTERM, a container's stop): new Runs are refused while the
    Runs in flight finish, and a Run the drain's bound cuts short ends with this, which says
    the server, not the visitor's code, ended it."""


class DiskFull(Maintenance):
    """The server's temporary disk has no room for a job's files: new Runs are refused, as in
    maintenance, until it has; the operator sees it in the log and in /metrics."""


class SandboxError(PlaygroundError, RuntimeError):
    """The sandbox could not start or talk to a worker."""


class Cancelled(PlaygroundError, RuntimeError):
    """The client that asked for a job has gone (a closed stream). Raised from the client's
    on_event callback: the supervisor lets it through, kills the job's worker and still bills
    the time the job ran; a job still waiting in a queue leaves it."""
