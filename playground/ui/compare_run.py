"""A compare run in the app: both sides through the shared fair executor, as two jobs of one client.

With the default per-client limit of one running job (PLAYGROUND_CLIENT_RUNNING=1), the sides
run one after the other, so side b never waits behind side a in its own client's queue (and
never counts against PLAYGROUND_CLIENT_QUEUED). Where a client may run two jobs at once, they run
side by side.
"""
from __future__ import annotations

import threading
from typing import Protocol

import streamlit as st

from .. import compare
from ..fairness import FairExecutor
from ..i18n import _
from ..job import Job, Report


class Progress(Protocol):   # run.RunProgress (run.py imports this module)
    def on_event(self, event: dict) -> None: ...


def concurrent(executor: FairExecutor) -> bool:
    return executor.queue.limits.running_per_client >= 2


def submit_both(executor: FairExecutor, job_a: Job, job_b: Job, client: str,
                progress_a: Progress, progress_b: Progress) -> tuple[Report, Report]:
    try:
        from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx
        context = get_script_run_ctx()
    except ImportError:   # the internal API moved: side b's progress is then not drawn
        context = None

    def submit(job: Job) -> Report:
        if context is not None:   # side b's thread, when the sides run at once, can draw too
            add_script_run_ctx(threading.current_thread(), context)
        progress = progress_a if job is job_a else progress_b
        return executor.submit(job, on_event=progress.on_event, client=client)
    return compare.run_sides(submit, job_a, job_b, concurrent=concurrent(executor))


def side_caption(name: str, side: str) -> None:
    st.caption(_("Side {name} ({side}):").format(name=name, side=side))
