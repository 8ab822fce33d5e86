"""Session state: defaults, gallery loading, the Job it describes, and the share-link URL round trip."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

import streamlit as st

from .. import gallery
from ..contract import i18n, options
from ..contract.job import Job, Report
from ..contract.share_link import (
    P_CALLS,
    P_CODE,
    P_EXAMPLE,
    P_EXPORT,
    P_FUNCTION,
    decode_source,
    input_params,
)
from ..contract.specs import NO_ARGUMENTS
from ..gallery.recorded import recorded
from ..reports.compare import Comparison
from ..reports.drawn import Cut
from . import compare_inputs, keys

DEFAULT_EXAMPLE = "retracing"
P_PRESENT = "present"  # presenter mode: not an input, so it rides on top of the inputs' URL
# The page's address says its result is on screen: a reload (or Back to it) runs it again, with
# no click. Not in a share link: opening a link costs its reader no Run they did not ask for.
P_RAN = "ran"


@dataclass(frozen=True)
class Result:
    """One finished run, kept in session state so tab switches never re-run the engine."""

    job: Job
    report: Report
    example: str | None  # the gallery slug whose settings produced it, if unchanged
    number: int = 1  # runs so far in this session, shown so a fresh result is evident
    archives: dict = field(default_factory=dict)  # export_zip.collect(): zips built at run time
    comparison: Comparison | None = None  # compare mode: both sides; report is side a
    before_fix: tuple[int, int] | None = None  # (run number, its traces): a fix made this run
    saved: str = ""  # a saved report opened from a file (its name): read-only, no run behind it
    recorded: bool = False  # the example's recorded report, drawn before any Run (gallery/recorded.py)
    cuts: tuple[Cut, ...] = ()  # what of a saved report is not drawn (reports/drawn.py)


def example_values(example: gallery.Example) -> dict:
    """The inputs an example sets: its code and plan, and every option a link carries (each
    option's widget key is its name), at the example's value or the option's default."""
    linked = {o.name: "" if o.default is None else o.default for o in options.OPTIONS if o.param}
    return {
        keys.SOURCE: example.source,
        keys.FUNCTION: example.function or "",
        keys.CALLS: "\n".join(c.strip() or NO_ARGUMENTS for c in example.calls),
        **linked,
        **{name: "" if value is None else value for name, value in example.options().items()},
        keys.EXPORT: False,
    }


def values_from_params(params: Mapping[str, str]) -> dict:
    """Widget values a URL describes: ?example=<slug>, then any explicit settings on top."""
    example = gallery.BY_SLUG.get(params.get(P_EXAMPLE, ""), gallery.BY_SLUG[DEFAULT_EXAMPLE])
    values = example_values(example)
    values[keys.EXAMPLE] = example.slug
    if P_CODE in params:
        try:
            values[keys.SOURCE] = decode_source(params[P_CODE])
        except (ValueError, zlib.error, UnicodeDecodeError):
            pass  # a mangled link falls back to the example rather than a blank editor
    for param, key in {P_FUNCTION: keys.FUNCTION, P_CALLS: keys.CALLS}.items():
        if param in params:
            values[key] = params[param]
    values.update(options.from_params(params))
    if P_EXPORT in params:
        values[keys.EXPORT] = params[P_EXPORT] == "1"
    values.update(compare_inputs.values_from_params(params))
    values[keys.PRESENT] = params.get(P_PRESENT) == "1"
    return values


def params_from_values(values: Mapping[str, object]) -> dict[str, str]:
    """The URL for the current state, with &present=1 in presenter mode."""
    params = _input_params(values)
    if values.get(keys.PRESENT):
        params[P_PRESENT] = "1"
    return params


def _input_params(values: Mapping[str, object]) -> dict[str, str]:
    """The inputs' part of the URL: just ?example= while the example is untouched."""
    slug = str(values.get(keys.EXAMPLE) or "")
    example = gallery.BY_SLUG.get(slug)
    if example is not None:
        pristine = example_values(example)
        if all(values.get(k) == v for k, v in pristine.items()):
            return {P_EXAMPLE: slug, **compare_inputs.params(values)}
    params = input_params(
        source=str(values.get(keys.SOURCE, "")),
        function=str(values.get(keys.FUNCTION) or ""),
        calls=str(values.get(keys.CALLS, "")),
        values={name: values.get(name) for name in options.NAMES},
        export=bool(values.get(keys.EXPORT)),
    )
    if example is not None:
        params[P_EXAMPLE] = slug
    return {**params, **compare_inputs.params(values)}


STATE_KEYS = (
    keys.EXAMPLE,
    keys.SOURCE,
    keys.FUNCTION,
    keys.CALLS,
    *options.NAMES,
    keys.EXPORT,
    keys.COMPARE,
    keys.COMPARE_KIND,
    keys.COMPARE_TF,
    keys.COMPARE_SIGNATURE,
    keys.PRESENT,
)


def init() -> None:
    """First run of a session: fill the widgets from the URL (or the default example). Later,
    Back and Forward: the browser reruns the page with the address it moved to, and the inputs
    follow it."""
    if st.session_state.get(keys.INITIALISED):
        if history_navigation() and st.query_params.to_dict() != st.session_state.get(keys.URL_SHOWN):
            load_params(st.query_params.to_dict())
            code_from_outside()
        return
    load_params(st.query_params.to_dict())
    st.session_state[keys.INITIALISED] = True


def load_params(params: Mapping[str, str]) -> None:
    """The inputs, and the run the address owes (P_RAN), from the page's address."""
    for key, value in values_from_params(params).items():
        st.session_state[key] = value
    for stale in (keys.FIELD_ERRORS, keys.RUN_ERROR, keys.RUN_ERROR_FIELD):
        st.session_state.pop(stale, None)
    if params.get(P_RAN) == "1":
        st.session_state[keys.RUN_REQUESTED] = True  # the Run button takes it once Runs open
    st.session_state[keys.URL_SHOWN] = dict(params)
    open_examples_tab()


def history_navigation() -> bool:
    """Whether this page run comes from the browser's Back or Forward (Streamlit flags it)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        context = get_script_run_ctx()
    except ImportError:  # the internal API moved: Back changes the address only, as before
        return False
    return bool(getattr(context, "is_history_navigation", False))


def open_examples_tab() -> None:
    """The tab an example's explanation talks about opens with it (its recording, then a run);
    not for code of the user's own that a link carries beside the example's name."""
    example = gallery.BY_SLUG.get(str(pristine_example(current_values()) or ""))
    if example is not None and example.tab:
        st.session_state[keys.OPEN_TAB] = example.tab


def code_from_outside() -> None:
    """Code arrived from outside the code editor (the gallery, a file): a new generation number
    tells the editor to take this text, not keep the one it had."""
    st.session_state[keys.EDITOR_GENERATION] = st.session_state.get(keys.EDITOR_GENERATION, 0) + 1


def load_example() -> None:
    """on_change of the gallery picker: replace the inputs with the chosen example."""
    example = gallery.BY_SLUG[st.session_state[keys.EXAMPLE]]
    for key, value in example_values(example).items():
        st.session_state[key] = value
    st.session_state.pop(keys.FIELD_ERRORS, None)
    code_from_outside()
    open_examples_tab()


def current_values() -> dict:
    return {k: st.session_state.get(k) for k in STATE_KEYS}


def page_params() -> dict[str, str]:
    """The inputs' query params and the page's language (?lang=)."""
    from . import language

    return {**params_from_values(current_values()), **language.url_params()}


def sync_url() -> None:
    """The URL follows the state on every rerun, so a reload or a crashed tab loses nothing:
    the inputs, and whether their result is on screen (P_RAN), which a reload runs again."""
    params = page_params()
    if shows_its_result():
        params[P_RAN] = "1"
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
    st.session_state[keys.URL_SHOWN] = params


def shows_its_result() -> bool:
    """Whether the page shows a run of exactly its current inputs, which ended by itself: not
    a recording, an opened file, a stopped or refused run, or a run that hit a limit (a reload
    would pay that limit again)."""
    from .results import out_of_date

    held = result()
    return (
        held is not None
        and not held.recorded
        and not held.saved
        and not st.session_state.get(keys.RUN_ERROR)
        and held.report.status in ("ok", "error")
        and not out_of_date(held, current_values())
    )


def share_link() -> str:
    from urllib.parse import urlencode

    base = ""
    try:
        base = (st.context.url or "").split("?")[0]
    except AttributeError:  # older Streamlit without st.context.url
        pass
    return f"{base}?{urlencode(page_params())}"


def result() -> Result | None:
    return st.session_state.get(keys.RESULT)


def next_number() -> int:
    """The number the next result gets: the session's results, a run or an opened report, count up."""
    previous = result()
    return previous.number + 1 if previous else 1


def pristine_example(values: dict) -> str | None:
    """The gallery slug if the inputs are still exactly that example (so claim checks apply)."""
    slug = str(values.get(keys.EXAMPLE) or "")
    example = gallery.BY_SLUG.get(slug)
    if example is None:
        return None
    same = all(
        values.get(k) == v
        for k, v in example_values(example).items()
        if k not in (keys.TIMING, keys.TIMING_BUDGET, keys.SWEEP)
    )
    return slug if same else None


def recorded_result() -> Result | None:
    """An untouched gallery example's recorded report (gallery/recorded.py): a first visit, and
    each presenter step, sees a result before any Run; the first Run replaces it with a live one."""
    slug = pristine_example(current_values())
    held = recorded(slug, i18n.current()) if slug else None
    if slug is None or held is None:
        return None
    return Result(job=gallery.BY_SLUG[slug].job(), report=held, example=slug, number=0, recorded=True)
