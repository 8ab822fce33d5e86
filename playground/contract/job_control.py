"""A caller's grip on one submitted job: the page's Stop button, a Ray node pool's cancel.

Every executor's submit() takes one (contract, because the sandbox and the runs both use it)."""

from __future__ import annotations

import dataclasses
import threading


@dataclasses.dataclass
class JobControl:
    """Setting `stop` kills the job's worker as soon as it has one (a job still queued leaves
    the queue when it would start); `uid` is that worker's uid once it has one."""

    stop: threading.Event = dataclasses.field(default_factory=threading.Event)
    uid: int | None = None
