"""Presenter mode for team demos: the inputs fold into a collapsed panel, a header sets the
article's section and claim beside TensorFlow's live answer, the code, metrics and charts grow
for a projector, and Previous / Next (or ← → PageUp PageDown, as a presenter clicker sends)
step through the gallery in the article's order and run each example.

`?present=1` (in the URL and the share link, ui/state.py) or the toggle turns it on.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from .. import gallery
from ..contract.i18n import _
from ..gallery import article
from ..reports.safe_text import markdown_literal as md
from . import keys, state

STAGE, HEADER, PLAN = "presenter_stage", "presenter_header", "presenter_plan"  # for the CSS and tests
# Our own few lines, not st.button(shortcut=...): that takes one key per button (a clicker sends
# PageDown, a keyboard →) and fires on a focused tab list too. Static text, no user input in it.
KEYS_SCRIPT = pathlib.Path(__file__).with_name("presenter_keys.js").read_text()

# Only drawn in presenter mode, and scoped to its stage: the normal page keeps its sizes.
# Plotly draws its text with inline sizes, hence !important on the charts' text.
CSS = f"""<style>
.st-key-{STAGE} [data-testid="stCode"] code {{font-size: 1.25rem; line-height: 1.4;}}
.st-key-{STAGE} [data-testid="stMetricValue"] {{font-size: 3.5rem;}}
.st-key-{STAGE} [data-testid="stMetricLabel"] p {{font-size: 1.25rem;}}
.st-key-{STAGE} [data-testid="stPlotlyChart"] .main-svg text {{font-size: 15px !important;}}
.st-key-{STAGE} [data-testid="stPlotlyChart"] .main-svg .gtitle {{font-size: 19px !important;}}
.st-key-{HEADER} p, .st-key-{HEADER} li {{font-size: 1.3rem;}}
.st-key-{HEADER} h3 {{font-size: 2rem;}}
/* Streamlit scrolls a tab into view (block "nearest") when it opens: a step to an example with
   its own tab scrolled the stage 190 px at 1280x720, Previous / Next out of view. A tab counts
   as in view up and down; it still scrolls sideways within its row. */
.st-key-{STAGE} [role="tab"] {{scroll-margin-block: -100000px;}}
/* a projector: no page chrome (Streamlit's top bar and its menu; the toggle turns it back) */
[data-testid="stMainBlockContainer"] {{padding-top: 1rem;}}
[data-testid="stHeader"], [data-testid="stToolbar"] {{display: none;}}
</style>"""


def active() -> bool:
    return bool(st.session_state.get(keys.PRESENT))


def step(delta: int) -> None:
    """on_click of Previous / Next: load the neighbouring example; its run is owed from now on."""
    slug = article.neighbour(str(st.session_state.get(keys.EXAMPLE) or ""), delta)
    if slug is None:
        return
    st.session_state[keys.EXAMPLE] = slug
    state.load_example()
    result = state.result()
    st.session_state[keys.PRESENT_PENDING] = (slug, result.number if result else 0)


def _request_owed_run(slug: str) -> None:
    """Asks main() for the run a step owes until a script run gets through it. A one-shot request
    is not enough: a widget that sends its value meanwhile reruns the page, and that rerun
    stops the run in flight."""
    pending = st.session_state.get(keys.PRESENT_PENDING)
    if not pending or pending[0] != slug:
        return
    result = state.result()
    if (result.number if result else 0) == pending[1]:  # no run since the step
        st.session_state[keys.RUN_REQUESTED] = True  # main() hands it to the Run button


def toggle() -> None:
    st.toggle(
        _("Presenter mode"),
        key=keys.PRESENT,
        help=_(
            "For demos on a projector: larger code, metrics and charts, the inputs in a "
            "collapsed panel, and ← → (or PageUp / PageDown) step through the examples "
            "in the article's order and run each one."
        ),
    )


@dataclass(frozen=True)
class Stage:
    """The presenter page's areas; main() fills `inputs` and `results` as it fills its columns."""

    header: DeltaGenerator
    run_area: DeltaGenerator
    results: DeltaGenerator
    inputs: DeltaGenerator

    def finish(self) -> None:
        """Fills the header last, so it shows the run this script may just have made."""
        st.session_state.pop(keys.PRESENT_PENDING, None)  # this script run got through
        with self.header:
            header(state.result() or state.recorded_result())


def _controls(slug: str) -> DeltaGenerator:
    """Previous, where we are, Next, and a slot for the Run button; returns the slot.

    The row stays put from step to step: it comes before the header (whose claim and checks
    take 150 to 230 px, example by example), its buttons sit at its top (the run's status
    under Run grows the row downward), and the buttons carry no tooltip (Next's, drawn above
    it, covered the claim); the keys are named in the caption instead."""
    previous, where, following, run_area = st.columns([2, 3, 2, 3], vertical_alignment="top")
    previous.button(
        _("◀ Previous"),
        key=keys.PRESENT_PREVIOUS,
        on_click=step,
        args=(-1,),
        disabled=article.neighbour(slug, -1) is None,
        width="stretch",
    )
    following.button(
        _("Next ▶"),
        key=keys.PRESENT_NEXT,
        on_click=step,
        args=(1,),
        disabled=article.neighbour(slug, 1) is None,
        width="stretch",
    )
    if slug in article.ORDER:
        where.caption(
            _("Example {position} of {count}: `{slug}`").format(
                position=article.ORDER.index(slug) + 1, count=len(article.ORDER), slug=slug
            )
            + "  \n"
            + _("← → or PageUp / PageDown: step and run")
        )
    st.html(f"<script>{KEYS_SCRIPT}</script>", unsafe_allow_javascript=True)
    return run_area


def stage(top_row: DeltaGenerator) -> Stage | None:
    """Draws the toggle; in presenter mode, also the stage. None in the normal page. On stage
    the toggle sits in `top_row` (beside the language), so the stage starts at the top."""
    if not active():
        toggle()
        return None
    with top_row:
        toggle()
    st.html(CSS)
    slug = str(st.session_state.get(keys.EXAMPLE) or "")
    _request_owed_run(slug)
    with st.container(key=STAGE):
        run_area = _controls(slug)  # first: the header's height changes from step to step
        top = st.container(key=HEADER)
        code, results = st.columns([5, 6], gap="large")
        # Wrapped: on a projector a line cut at the box's edge cannot be scrolled to.
        code.code(
            st.session_state.get(keys.SOURCE, ""), language="python", line_numbers=True, wrap_lines=True
        )
        plan = str(st.session_state.get(keys.CALLS) or "").strip()
        if plan and st.session_state.get(keys.FUNCTION):  # the calls are the point (n = 1, 2, 3)
            with code.container(key=PLAN):
                st.caption(_("Call plan: one call per line"))
                st.code(plan, language="text", wrap_lines=True)
    inputs = st.expander(_("Inputs: the code editor, the call plan and the options"), expanded=False)
    return Stage(header=top, run_area=run_area, results=results, inputs=inputs)


def _measured(checks: tuple[gallery.ClaimCheck, ...], with_expected: bool) -> str:
    """The checks as a markdown list; what a run measured is a report's text, escaped."""
    lines = []
    for c in checks:
        line = f"- {md(c.what)}: **{md(c.actual)}**"
        if with_expected and not c.holds:
            line += " " + _("(expected {expected})").format(expected=md(c.expected))
        lines.append(line)
    return "\n".join(lines)


def answer(example: gallery.Example, result: state.Result | None) -> None:
    """TensorFlow's side of the header: the verdict of this example's last run, if it has one."""
    if result is None or result.example != example.slug:
        st.info(_("Not run yet: press Run, or step here with ← →, to ask TensorFlow."))
        return
    version = md(result.report.tensorflow_version)
    found = article.verdict(example, result.report)
    if found.kind == "holds":
        st.success(_("On TensorFlow {version}, the claim holds.").format(version=version))
    elif found.kind == "does-not-hold":
        st.error(_("On TensorFlow {version}, the claim does not hold.").format(version=version))
    elif found.kind == "unexpected":
        st.warning(
            _("TensorFlow {version} did not do what the gallery measured before: no verdict.").format(
                version=version
            )
        )
    else:
        st.info(_("TensorFlow {version} ran it; this example has no measured check.").format(version=version))
    if found.checks:
        st.markdown(_measured(found.checks, with_expected=found.kind == "unexpected"))


def header(result: state.Result | None) -> None:
    """The article's section and claim on the left, TensorFlow's answer on the right."""
    example = gallery.BY_SLUG.get(str(st.session_state.get(keys.EXAMPLE) or ""))
    if example is None:
        return
    if state.pristine_example(state.current_values()) != example.slug:
        # Code of one's own (pasted, or the example edited): the article's claim is about
        # the example's code, and a verdict on other code would contradict what is on stage.
        st.subheader(_("Your own code"))
        st.caption(
            _(
                "The article's claim for {slug} is checked against that example's own code only; "
                "← → go back to the gallery."
            ).format(slug=f"`{example.slug}`")
        )
        return
    claim, tensorflow = st.columns([3, 2], gap="large")
    with claim:
        section = article.SECTION_OF.get(example.slug)
        if section is not None:
            st.caption(_("Article §{number}: {title}").format(number=section.number, title=_(section.title)))
        st.subheader(_(example.title))
        if example.article_claim:
            st.markdown(_("**The article says:** {claim}").format(claim=_(example.article_claim)))
    with tensorflow:
        answer(example, result)
