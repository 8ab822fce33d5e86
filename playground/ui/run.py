"""The Run button: validate, build the Job, submit it through the shared executor with live status."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import TypeVar

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ..contract import i18n, reasons
from ..contract.config import Settings
from ..contract.errors import LimitError, Maintenance, PlaygroundError, WarmingUp
from ..contract.i18n import _
from ..contract.job_control import JobControl
from ..reports import drawn
from ..reports.safe_text import markdown_literal
from ..runs import metrics, shared
from ..runs.fairness import FairExecutor
from ..runs.service import log_run
from . import compare_run, export_zip, keys, language, request, state
from .client import client_id
from .results import tab_label as results_tab_label

T = TypeVar("T")


def executor() -> FairExecutor:
    """The server's shared executor (runs/shared.py): page runs and API calls share its queue."""
    return shared.executor()


def warm_at_start() -> None:
    """At server start (app.py's lifespan): creates the shared executor in the background, so the
    pool's workers import TensorFlow before the first visitor arrives. A failure here is only
    logged; the first page view tries again and shows it."""
    import logging
    import threading

    def start() -> None:
        try:
            executor()
        except Exception:
            logging.getLogger(__name__).exception("warming the pool at start failed")
        pay_first_use_costs()

    threading.Thread(target=start, name="warm-pool", daemon=True).start()
    count_sessions()


def count_sessions() -> None:
    """/metrics reads the page's open sessions at each scrape."""
    metrics.gauge("playground_open_sessions", "Open page sessions (browser tabs).", open_sessions)


def open_sessions() -> int:
    """The page sessions Streamlit holds now (a private count: 0 where a Streamlit lacks it)."""
    try:
        from streamlit.runtime import Runtime

        return int(Runtime.instance()._session_mgr.num_active_sessions())
    except Exception:  # noqa: BLE001 - another Streamlit: the gauge reads 0, the page is fine
        return 0


def pay_first_use_costs() -> None:
    """Once-per-process costs that the first visitor's page run and first Run would pay, paid at
    server start instead (cProfile of those two runs, this machine): Streamlit's check that it is
    not in a REPL, which walks inspect.stack() with realpath on every frame (0.22 s), nbformat
    compiling its notebook schema for the notebook download (0.16 s), pandas' first table of
    strings for st.dataframe (0.15 s, a lazy pyarrow import) and the recorded claims table."""
    import nbformat
    import pandas

    from . import claims_table

    nbformat.v4.new_notebook()  # validates: compiles and caches the schema
    pandas.DataFrame([{"check": "text"}])
    claims_table.recorded()
    try:
        from streamlit import delta_generator

        delta_generator._maybe_print_use_warning()  # private; says nothing under `streamlit run`
    except Exception:  # noqa: BLE001 - gone or changed in another Streamlit: the page pays it
        pass


def warm() -> None:
    """Creates the shared executor on the first page view if the server start did not (AppTest,
    a server started without app.py's st.App), so workers warm before the first Run."""
    try:
        executor()
    except PlaygroundError as error:  # e.g. an unknown PLAYGROUND_EXECUTOR: say so at Run time
        st.session_state[keys.RUN_ERROR] = str(error)


def closed() -> WarmingUp | Maintenance | None:
    """Why no Run is taken now (the refusal a Run would meet: the executor's own admission
    check), or None."""
    try:
        executor().admit()
    except (WarmingUp, Maintenance) as refusal:
        return refusal
    except PlaygroundError:  # an executor that cannot be made says so at Run
        return None
    return None


def closed_notice(refusal: WarmingUp | Maintenance) -> None:
    """Above Run while it is closed: the operator's message, or the warm-up's count-down."""
    if isinstance(refusal, Maintenance):
        st.warning(markdown_literal(str(refusal)), icon="🛠️")
    else:
        warming_notice()


def warming_s() -> float | None:
    """Seconds the server's sandbox still needs to import TensorFlow; None: Runs are taken."""
    try:
        return executor().warming_s()
    except PlaygroundError:  # an executor that cannot be made says so at Run
        return None


@st.fragment(run_every=1.0)
def warming_notice() -> None:
    """Drawn only while the server warms up: says so above Run, each second, and reruns the
    page once the sandbox is warm, which opens Run (and makes a Run asked for meanwhile)."""
    left = warming_s()
    if left is None:
        st.rerun(scope="app")
    st.info(
        _(
            "Warming up: the server has just started and its sandbox is loading TensorFlow, "
            "about {seconds} s. Run opens then; until then you see the example's recorded result."
        ).format(seconds=f"{left:.0f}"),
        icon="⏳",
    )


def eta_text(eta_s: object) -> str:
    """ ", about 12 s to start" from the pool's estimate; "" when it sent none (or nonsense)."""
    try:
        seconds = float(eta_s)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    if not seconds > 0 or seconds == float("inf"):
        return ""
    if seconds < 1:
        return _(", starting in under a second")
    if seconds < 90:
        return _(", about {seconds} s to start").format(seconds=f"{seconds:.0f}")
    return _(", about {minutes} min to start").format(minutes=f"{seconds / 60:.0f}")


def _describe(event: dict, calls: int) -> tuple[str, float | None]:
    """The caption for one event and the bar's fraction. An event's strings come from the
    worker (a reason, a mode) and the caption renders markdown: each is escaped."""
    kind = event.get("event")
    if kind == "queued" and event.get("behind_own_run"):
        return _(
            "Waiting for your other run (in another tab?) to finish: one run at a time per visitor…"
        ), None
    if kind == "queued":
        ahead = int(event.get("position") or 0)
        eta = eta_text(event.get("eta_s"))
        return (
            _("Queued: {ahead} job(s) ahead of yours{eta}").format(ahead=ahead, eta=eta)
            if ahead
            else _("Waiting for a warm worker{eta}…").format(eta=eta)
        ), None
    if kind == "starting_version":
        return _(
            "Starting TensorFlow {version}: no warm worker has it yet, so this run first imports it…"
        ).format(version=markdown_literal(event.get("tf_version", ""))), None
    if kind == "started":
        return _("Running in a sandboxed worker…"), 0.0
    if kind == "call_finished":
        index = int(event.get("index", 0))
        traced = _("traced") if event.get("retraced") else _("reused a graph")
        reason = (
            _(" ({reason})").format(reason=markdown_literal(reasons.text(str(event["reason"]))))
            if event.get("reason")
            else ""
        )
        return _("Call {number} of {calls}: {traced}{reason}").format(
            number=index + 1, calls=calls, traced=traced, reason=reason
        ), (index + 1) / max(calls, 1)
    if kind == "demoted":
        return _(
            "Still running after {seconds} s, so it now runs at low priority: shorter runs go first…"
        ).format(seconds=f"{float(event.get('after_s') or 0):g}"), None
    if kind == "timing":
        return (
            _("Timing {mode}…").format(mode=markdown_literal(reasons.mode_name(str(event.get("mode", ""))))),
            float(event.get("progress", 0.0)),
        )
    return _("Running…"), None


class RunProgress:
    """One line of text and a bar while a run waits and runs. Static on purpose: an animated
    spinner (st.status) costs every waiting browser tab about 0.1 core for as long as it waits
    (measured with bench/load_test.py's Chromium), which is what queued users do most.

    An event only records what to say; the page's thread draws the latest at each tick of
    `watched` (4 a second). Drawn per event, a 3-call run sent 13 of its 55 messages for a
    status nobody could read in its 0.15 s, and each message costs the server."""

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.language = i18n.current()  # events may come from the executor's own thread
        self.line = st.empty()
        self.bar = st.empty()
        self.line.caption(_("Submitting…"))
        self._latest: tuple[str, float | None] | None = None  # set by events, drawn by flush
        self._drawn: tuple[str, float | None] | None = None
        # A compare's side b finishes on the run's thread while the page's thread may flush:
        # once finished, no flush draws over the final line.
        self._drawing = threading.Lock()
        self._finished = False

    def on_event(self, event: dict) -> None:
        with i18n.using(self.language):
            self._latest = _describe(event, self.calls)

    def flush(self) -> None:
        """Draws the latest status, if it changed since the last draw."""
        with self._drawing:
            latest = self._latest
            if self._finished or latest is None or latest == self._drawn:
                return
            self._drawn = latest
            label, fraction = latest
            try:
                self.line.caption(label)
                if fraction is not None:
                    self.bar.progress(min(max(fraction, 0.0), 1.0))
            except Exception:  # noqa: BLE001 - a page that moved on cannot draw; the run goes on
                pass

    def finish(self, label: str) -> None:
        with self._drawing:
            self._finished = True
            self.bar.empty()
            self.line.caption(label)


def watched(
    submit: Callable[[], T],
    control: JobControl,
    elapsed: DeltaGenerator,
    limit_s: float,
    tick: Callable[[], None] = lambda: None,
) -> T:
    """Runs `submit` on a thread of its own (drawing as the page's run does), while this one
    shows the time used against the limit, and calls `tick` (the run's progress), every quarter
    second. Any other page run interrupts this thread at one of those draws, and the job is
    then stopped here; the new page run says so (`settle_live_run`)."""
    from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

    context = get_script_run_ctx()
    outcome: dict[str, T] = {}
    failure: list[BaseException] = []

    def work() -> None:
        if context is not None:
            add_script_run_ctx(threading.current_thread(), context)
        try:
            outcome["value"] = submit()
        except BaseException as error:  # noqa: BLE001 - handed to the page's thread, raised there
            failure.append(error)

    thread = threading.Thread(target=work, name="page-run", daemon=True)
    started = time.monotonic()
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.25)
            used = time.monotonic() - started
            tick()
            elapsed.caption(
                _("{used} s of at most {limit} s").format(used=f"{used:.0f}", limit=f"{limit_s:g}")
            )
    finally:
        if thread.is_alive():  # interrupted: the page moved on (a Stop press has halted it)
            # Only the stop: this run is being stopped, and a write to the session state here
            # raises Streamlit's StopException before it lands. The new page run says it.
            control.stop.set()
    elapsed.empty()
    if failure:
        raise failure[0]
    return outcome["value"]


def _session_id() -> str:
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return ctx.session_id if ctx is not None else "unknown"
    except ImportError:  # the internal API moved: logs then group nothing, runs still work
        return "unknown"


# The fragment beside Run that says why a press was refused (refusal_notice).
NOTICE = "run_notice"
# A block drawn only while a run runs, and the Stop bar, which the page's CSS shows only then,
# in Run's place: Run is hidden meanwhile, so a second click on Run cannot land on Stop.
LIVE, STOP_BAR = "run_live", "stop_bar"
STOP_CSS = f"""<style>
.st-key-{STOP_BAR} {{display: none;}}
[data-testid="stLayoutWrapper"]:has(> .st-key-{STOP_BAR}) {{display: contents;}}  /* and no gap */
body:has(.st-key-{LIVE}) .st-key-{STOP_BAR} {{display: flex;}}
body:has(.st-key-{LIVE}) .st-key-{keys.RUN} {{display: none;}}
@media (max-width: 640px) {{  /* a phone: Stop takes Run's place at the bottom of the screen */
  body:has(.st-key-{LIVE}) .st-key-{STOP_BAR} {{position: fixed; left: 1rem; right: 1rem;
    bottom: 0.75rem; width: auto !important; z-index: 1001;}}
}}
</style>"""


def stop_button() -> None:
    """Stop, drawn by the page's own script run, outside the Run fragment, before any run
    starts: its press then reruns the whole page, which interrupts the run at its next draw
    (`watched`). Streamlit lets no fragment's widget interrupt a running script, so a Stop drawn
    beside Run, in the fragment, waited for the job's time limit. Hidden (STOP_CSS) except
    while a run draws its LIVE block; the page draws STOP_CSS with its own CSS (an element of
    its own here would leave a gap above Run)."""
    with st.container(key=STOP_BAR):
        st.button(
            _("Stop"),
            key=keys.STOP,
            on_click=stopped,
            type="primary",  # the one thing to press meanwhile; opaque over a phone's page
            width="stretch",
            # No tooltip: the mouse that pressed Run is over Stop, and the tooltip it opened
            # stayed at the page's corner once Stop was hidden again.
        )


def stopped() -> None:
    """Stop's on_click, first thing in the page run its press starts: stops the live run's job
    now (its worker is killed within 0.1 s, runs/fairness.py). No run is owed any more either
    (a presenter step's, a Ctrl+Enter's). The page run then says so (`settle_live_run`)."""
    st.session_state.pop(keys.PRESENT_PENDING, None)
    st.session_state.pop(keys.RUN_REQUESTED, None)
    live = st.session_state.get(keys.RUN_LIVE)
    if live is not None:
        live[0].stop.set()


def settle_live_run() -> None:
    """First thing in every whole page run: a run still live is being stopped by it (Streamlit's
    fast reruns stop the old script run at its next draw), by a Stop press or any other input.
    Its job stops now, and the page says so in place of a result. Said here, by the new run:
    the old one is stopped before its own word could land, and a Stop press's callback runs
    before the page's language is set."""
    live = st.session_state.pop(keys.RUN_LIVE, None)
    if live is None:
        return
    control, started = live
    control.stop.set()
    st.session_state[keys.RUN_ERROR] = _(
        "Stopped after {seconds} s: its worker was stopped, and the {seconds} s it ran count "
        "toward your sandbox time."
    ).format(seconds=f"{time.monotonic() - started:.1f}")


def admission(settings: Settings) -> None:
    """Run's on_click, before the page draws anything: a press the server cannot take now
    (maintenance, the warm-up, a per-client limit, a full queue) is refused here, counted, and
    only the notice beside Run is redrawn, never the report under it. A press that passes
    reruns the page's part as before, and the Run is queued there."""
    language.apply()  # a callback runs before the page's run has set the session's language
    st.session_state.pop(keys.RUN_REFUSED, None)
    client = client_id(settings.client_ip_header)
    try:
        executor().check(client)
    except LimitError as refusal:
        log_run(_session_id(), time.monotonic(), error=refusal, client=client)
        st.session_state[keys.RUN_REFUSED] = str(refusal)
        st.rerun(NOTICE)
    except PlaygroundError:  # an executor that cannot be made: the Run says so
        pass


@st.fragment(key=NOTICE)
def refusal_notice() -> None:
    """Why the last press of Run was refused, once. Its own fragment, so a refusal redraws
    this line alone."""
    refusal = st.session_state.pop(keys.RUN_REFUSED, None)
    if refusal:
        st.error(markdown_literal(refusal), icon="⏳")


def run_button(settings: Settings, status: DeltaGenerator | None = None) -> bool:
    """Draws the button; on a click (or a run requested: Ctrl+Enter in the editor, a presenter
    step), runs the job, stores the Result (or the error) and returns True. The run's live
    status goes to `status` (default: under the button), after the notice of a refused press."""
    shut = closed() is not None
    # A Run asked for while closed (Ctrl+Enter, a presenter step) waits for the rerun that opens it.
    requested = not shut and bool(st.session_state.pop(keys.RUN_REQUESTED, False))
    pressed = st.button(
        _("Run"),
        key=keys.RUN,
        type="primary",
        width="stretch",
        disabled=shut,
        on_click=admission,
        args=(settings,),
    )
    with status if status is not None else nullcontext():
        refusal_notice()
    if not pressed and not requested:
        return False
    had_field_errors = bool(st.session_state.get(keys.FIELD_ERRORS))
    with status if status is not None else nullcontext():
        _run(settings)
    if had_field_errors:  # their messages sit by the inputs, outside a fragment: redraw the page
        st.rerun(scope="app")
    return True


def _run(settings: Settings) -> None:
    values = state.current_values()
    before_fix = st.session_state.pop(keys.FIX_APPLIED, None)  # this run is the fix's, or none is
    job, errors = request.checked_job(values, settings, i18n.current())
    st.session_state[keys.FIELD_ERRORS] = errors
    st.session_state[keys.FIELD_VALUES] = {key: st.session_state.get(key) for key in errors}
    st.session_state.pop(keys.RUN_ERROR, None)
    st.session_state.pop(keys.RUN_ERROR_FIELD, None)
    if job is None:
        # Said next to Run, where the eye is, and again next to its field.
        field, problem = next(iter(errors.items()))
        st.session_state[keys.RUN_ERROR] = _("Not run: {problem}").format(problem=problem)
        st.session_state[keys.RUN_ERROR_FIELD] = field
        st.rerun()
    session, client = _session_id(), client_id(settings.client_ip_header)
    side_b = compare_run.prepare(values, job)  # None: no compare; a bad setting reruns
    started = time.monotonic()
    progress = RunProgress(len(job.calls))
    shown = [progress]  # and a compare's second side, made on the run's thread

    def side_b_progress() -> RunProgress:
        shown.append(RunProgress(len(job.calls)))
        return shown[-1]

    def tick() -> None:
        for each in list(shown):
            each.flush()

    live = st.empty()  # while it holds the LIVE block, the page shows Stop (stop_button)
    elapsed = live.container(key=LIVE).empty()
    control = JobControl()
    st.session_state[keys.RUN_LIVE] = (control, started)  # what a Stop press halts
    try:
        report, comparison = watched(
            lambda: compare_run.submit(
                executor(),
                job,
                side_b,
                client,
                progress,
                side_b_progress,
                lambda b: log_run(session, started, b, client=client),
                control,
            ),
            control,
            elapsed.empty(),
            min(job.timeout_s, settings.timeout_s),
            tick=tick,
        )
    except PlaygroundError as error:
        live.empty()
        st.session_state.pop(keys.RUN_LIVE, None)
        log_run(session, started, error=error, client=client)
        progress.finish(_("The run did not finish"))
        st.session_state[keys.RUN_ERROR] = str(error)  # worded for a person; no class names
        return
    live.empty()
    st.session_state.pop(keys.RUN_LIVE, None)
    log_run(session, started, report, client=client)
    # A worker's report has a file's bounds (contract/protocol.py): drawn within the page's, as
    # a saved report is, what was cut said above the results.
    report, cuts = drawn.fit(report)
    progress.finish(_("Done: {summary}").format(summary=markdown_literal(report.message or report.status)))
    # Zipped now, once, and the job's directory deleted: reruns and tab switches reuse the bytes.
    archives = export_zip.collect(report.export.path) if report.export else {}
    if report.status != "ok" or report.error:  # open on what went wrong, not on Converted code
        st.session_state[keys.RESULT_TAB] = results_tab_label("Problems")
    st.session_state[keys.RESULT] = state.Result(
        job=job,
        report=report,
        example=state.pristine_example(values),
        number=state.next_number(),
        archives=archives,
        comparison=comparison,
        before_fix=before_fix,
        cuts=tuple(cuts),
    )
