"""The Streamlit page: inputs on the left, results on the right; never imports TensorFlow."""

from __future__ import annotations

import pathlib

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ..contract.config import Settings
from ..contract.i18n import _
from ..reports.safe_text import markdown_literal
from ..runs.service import configure_logging
from . import (
    claims_table,
    compare_inputs,
    editor,
    keys,
    language,
    options,
    plan,
    presenter,
    results,
    run,
    state,
)

# Copies the popover's link when it opens (static text: the page's CSP allows it by hash).
SHARE_SCRIPT = (pathlib.Path(__file__).with_name("share_copy.js")).read_text()
# On a phone, brings the results into view after a Run (static text, allowed by hash).
RUN_SCROLL_SCRIPT = (pathlib.Path(__file__).with_name("run_scroll.js")).read_text()


def share_button() -> None:
    """The share link, copied to the clipboard as the button opens (SHARE_SCRIPT) and shown, to
    copy by hand where the browser refuses."""
    with st.popover(_("Copy share link"), width="stretch", key=keys.SHARE):
        st.caption(
            _(
                "This link reproduces the code, every setting and the language. Nothing is "
                "stored on the server."
            )
        )
        with st.container(key="share_link"):
            st.code(state.share_link(), language="text", wrap_lines=True)
        st.markdown(
            '<div class="pg-copied">✓ ' + _("Copied to your clipboard.") + "</div>", unsafe_allow_html=True
        )
        st.html(f"<script>{SHARE_SCRIPT}</script>", unsafe_allow_javascript=True)


# Code belongs in a monospace font; Streamlit's text areas default to the body font. The title
# breaks only between words: on a phone "演练场" broke as "演练 / 场". A code view wider than its
# box scrolls, and shows its scroll bar: Streamlit's is transparent until hovered, so a long
# line looked cut at the edge. On a phone the results' tabs wrap: in one row, "Problems" was
# past the screen's edge.
CSS = """<style>
.st-key-source textarea, .st-key-calls textarea, .st-key-signature input
{font-family: "Source Code Pro", ui-monospace, monospace; font-size: 0.85rem;}
h1 {word-break: keep-all;}
[data-testid="stCode"] pre {scrollbar-color: rgba(128, 128, 128, 0.6) transparent;}
.pg-copied {display: none; color: #1b7f3b; margin: 0;}
body[data-share-copied] .pg-copied {display: block;}
@media (max-width: 640px) {  /* a phone: the code and Run on the first screen */
  h1 {font-size: 1.7rem !important; padding: 0 !important;}
  [data-testid="stMainBlockContainer"] {padding-top: 1.5rem; padding-bottom: 5rem;}
  .st-key-example_about [data-testid="stExpanderDetails"] {max-height: 6rem; overflow-y: auto;}
  .st-key-run {position: fixed; left: 1rem; right: 1rem; bottom: 0.75rem; width: auto !important;
               z-index: 1000;}
  [data-testid="stTabs"] [role="tablist"] {flex-wrap: wrap; row-gap: 0.25rem; overflow-x: visible;}
}
</style>"""


def inline_scripts() -> tuple[str, ...]:
    """The text of every inline script the page draws (st.html): the Content-Security-Policy
    allows these, by hash, and no other (front_door/page_headers.py, app.py)."""
    return (presenter.KEYS_SCRIPT, editor.PUSH_MARKS, SHARE_SCRIPT, RUN_SCROLL_SCRIPT)


def main() -> None:
    settings = Settings.from_env()
    configure_logging()
    language.apply()  # first: every text below is drawn in this session's language
    # Wide: code wants Compiler Explorer's room (an 80-character line whole beside AutoGraph's).
    st.set_page_config(page_title=_("tf.function playground"), layout="wide")

    state.init()
    run.settle_live_run()
    editor.keep_source()
    run.warm()
    st.html(CSS + run.STOP_CSS)
    st.html(f"<script>{RUN_SCROLL_SCRIPT}</script>", unsafe_allow_javascript=True)
    head, toggle = st.columns([5, 1], vertical_alignment="center")
    with toggle:
        language.toggle()
    if not presenter.active():  # on a projector the stage starts at the top: no title, no tagline
        head.title(_("tf.function playground"))
        st.caption(
            _(
                "Paste a TensorFlow function and see what tf.function and AutoGraph do with it: "
                "traces, converted code, graphs, timings and pitfalls."
            )
        )
    stage = presenter.stage(head)  # presenter mode: a header, big results, the inputs folded away
    inputs, outputs = (stage.inputs, stage.results) if stage else st.columns([5, 6], gap="large")
    wide = st.empty()  # below both columns: the code view, at the page's full width
    with inputs:
        c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
        with c1:
            editor.gallery_picker()
        with c2:
            share_button()
        with st.container(key="example_about"):  # held short on a phone (CSS above)
            editor.gallery_panel()
        infos = editor.source_editor(settings)
        plan.show_error(keys.SOURCE)
        info = editor.function_picker(infos)
        plan.follow_code(info)
        plan.argument_builder(info)
        plan.plan_text(info)

        def option_inputs() -> None:
            options.options(settings.max_timing_budget_s)
            options.tf_version_picker(settings)
            compare_inputs.inputs()

        options.panel(option_inputs)
        editor.file_opener(settings)
        claims_table.claims_panel(str(st.session_state.get(keys.EXAMPLE, "")))
    shut = run.closed()
    if stage:  # its own layout, one script run per Run: the header shows the run's verdict
        with stage.run_area:
            if shut:
                run.closed_notice(shut)
            run.stop_button()
            run_button(settings)
        with outputs:
            result_area()
        stage.finish()
    else:
        with outputs:
            if shut:
                run.closed_notice(shut)
            run.stop_button()  # outside the fragment: its press must interrupt the run
            workbench(settings, wide)
    state.sync_url()


@st.fragment
def workbench(settings: Settings, wide: DeltaGenerator) -> None:
    """Run, its live status and the results: a Run (or a tab switch) reruns only this, so the
    browser gets the results' deltas, not the inputs'. The inputs' values are read from the
    session state, where every widget's latest value is before any rerun."""
    language.apply()  # a fragment's own rerun does not pass through main()
    if st.session_state.pop(keys.RERUN_PAGE, False):  # a fix changed the plan: show it, then run
        st.rerun(scope="app")
    bar, status = st.columns([1, 3], vertical_alignment="center")
    with bar:
        run_button(settings, status=status)
    result_area(wide)


def run_button(settings: Settings, status: DeltaGenerator | None = None) -> None:
    """Run, and after a run the new report's gutter marks handed to the editor: it was drawn
    above, before the run (early, so a first visit gets it soon), and a Run from the fragment
    does not redraw it at all."""
    if run.run_button(settings, status=status):
        result = state.result()
        editor.push_gutter_marks(settings, result.number if result else 0)
        state.sync_url()  # a Run from the fragment: the address now says its result is shown


def result_area(wide: DeltaGenerator | None = None) -> None:
    """The last run's error or result. `wide`: a slot at the page's width for the code view."""
    if st.session_state.get(keys.RUN_ERROR):
        message = markdown_literal(st.session_state[keys.RUN_ERROR])  # may quote a worker
        field = st.session_state.get(keys.RUN_ERROR_FIELD)
        if field:  # a refusal: its field is elsewhere on the page, with the same message
            message += " [" + _("Show the field") + f"](#{plan.field_anchor(str(field))})"
        st.error(message)
    result = state.result()
    stale = result is not None and results.out_of_date(result, state.current_values())
    if (result is None or stale) and not st.session_state.get(keys.RUN_ERROR):
        # An untouched example (a first visit, a presenter step) shows its recording at once.
        held = state.recorded_result()
        result, stale = (held, False) if held is not None else (result, stale)
    if result is None and not st.session_state.get(keys.RUN_ERROR):
        st.info(_("Press **Run** to trace the function with the call plan."))
    elif result is not None and stale:
        st.warning(
            _(
                "Out of date: these results are from run {number}, and the code, the function or "
                "the plan has changed since. Press **Run** to see the current ones."
            ).format(number=result.number)
        )
    drew_wide = result is not None and results.render(result, wide=wide)
    if wide is not None and not drew_wide:
        wide.empty()  # no code view this time: the slot held the last one
