"""A compare run in the app: both sides through the shared fair executor, as two jobs of one client.

With the default per-client limit of one running job (PLAYGROUND_CLIENT_RUNNING=1), the sides
run one after the other, so side b never waits behind side a in its own client's queue (and
never needs a PLAYGROUND_CLIENT_QUEUED place). Where a client may run two jobs at once, they run
side by side.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Protocol

import streamlit as st

from ..contract.i18n import _
from ..contract.job import Job, Report
from ..contract.job_control import JobControl
from ..reports import compare
from ..reports.safe_text import markdown_literal
from ..runs.fairness import FairExecutor
from . import compare_inputs, keys


class Progress(Protocol):  # run.RunProgress (run.py imports this module)
    def on_event(self, event: dict) -> None: ...

    def finish(self, label: str) -> None: ...


SideB = tuple[compare.CompareSpec, Job]


def prepare(values: Mapping[str, object], job: Job) -> SideB | None:
    """Side b's spec and Job, None when compare is off; a setting that cannot run is shown next
    to its field, and the page reruns (as plan.validate's messages are)."""
    errors = compare_inputs.validate(values, job)
    if errors:
        st.session_state[keys.FIELD_ERRORS] = errors
        st.rerun()
    spec, job_b = compare_inputs.side_b(values, job)
    return None if spec is None else (spec, job_b)


def concurrent(executor: FairExecutor) -> bool:
    return executor.queue.limits.running_per_client >= 2


def submit_both(
    executor: FairExecutor,
    job_a: Job,
    job_b: Job,
    client: str,
    progress_a: Progress,
    progress_b: Progress,
    control: JobControl | None = None,
) -> tuple[Report, Report]:
    try:
        from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

        context = get_script_run_ctx()
    except ImportError:  # the internal API moved: side b's progress is then not drawn
        context = None

    def submit(job: Job) -> Report:
        if context is not None:  # side b's thread, when the sides run at once, can draw too
            add_script_run_ctx(threading.current_thread(), context)
        progress = progress_a if job is job_a else progress_b
        return executor.submit(job, on_event=progress.on_event, client=client, control=control)

    return compare.run_sides(submit, job_a, job_b, concurrent=concurrent(executor))


def submit(
    executor: FairExecutor,
    job: Job,
    side_b: SideB | None,
    client: str,
    progress: Progress,
    new_progress: Callable[[], Progress],
    log_b: Callable[[Report], object],  # its result is not used
    control: JobControl | None = None,  # stops both sides
) -> tuple[Report, compare.Comparison | None]:
    """Side a's report, and the comparison when there is a side b (None otherwise)."""
    if side_b is None:
        return executor.submit(job, on_event=progress.on_event, client=client, control=control), None
    spec, job_b = side_b
    st.caption(_("Side b ({side}):").format(side=markdown_literal(compare.describe(job_b, spec))))
    progress_b = new_progress()
    a, b = submit_both(executor, job, job_b, client, progress, progress_b, control)
    progress_b.finish(_("Side b done: {summary}").format(summary=markdown_literal(b.message or b.status)))
    log_b(b)
    return a, compare.compare(spec, job, job_b, a, b)
