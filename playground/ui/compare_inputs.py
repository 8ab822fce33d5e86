"""The Compare toggle: what side b varies (TF version, reduce_retracing, jit_compile, a
signature), its check before Run, and its place in the share link (?cmp=SPEC)."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ..contract import i18n
from ..contract.config import Settings
from ..contract.errors import SpecError
from ..contract.i18n import _
from ..contract.job import Job
from ..contract.share_link import P_COMPARE
from ..reports import compare
from . import folded, keys, options
from .plan import show_error

DEFAULT_KIND = "reduce_retracing"


def kind_label(kind: str) -> str:
    return {
        "tf": _("TensorFlow version"),
        "reduce_retracing": _("reduce_retracing on/off (formerly experimental_relax_shapes)"),
        "jit_compile": _("jit_compile (XLA) on/off"),
        "signature": _("input_signature"),
    }[kind]


def tf_choices() -> dict[str, str]:
    return options.tf_choices(Settings.from_env())


def kinds() -> list[str]:
    return [k for k in compare.KINDS if k != "tf" or tf_choices()]


def spec_text(values: Mapping[str, object]) -> str | None:
    """The compare spec the inputs describe, in the CLI's grammar; None when compare is off."""
    if not values.get(keys.COMPARE):
        return None
    kind = str(values.get(keys.COMPARE_KIND) or DEFAULT_KIND)
    if kind == "tf":
        return f"tf={values.get(keys.COMPARE_TF) or 'default'}"
    if kind == "signature":
        return f"signature={str(values.get(keys.COMPARE_SIGNATURE) or '').strip()}"
    return kind


def values_from_params(params: Mapping[str, str]) -> dict:
    """Widget values of ?cmp=SPEC; a mangled one leaves compare off."""
    try:
        spec = compare.parse(params.get(P_COMPARE, ""))
    except SpecError:
        return {keys.COMPARE: False}
    values = {keys.COMPARE: True, keys.COMPARE_KIND: spec.kind}
    if spec.kind == "tf":
        values[keys.COMPARE_TF] = spec.value
    elif spec.kind == "signature":
        values[keys.COMPARE_SIGNATURE] = spec.value
    return values


def params(values: Mapping[str, object]) -> dict[str, str]:
    text = spec_text(values)
    return {} if text is None else {P_COMPARE: text}


def side_b(values: Mapping[str, object], job: Job) -> tuple[compare.CompareSpec | None, Job]:
    """The spec and side b's Job (raises SpecError); (None, job) when compare is off."""
    text = spec_text(values)
    if text is None:
        return None, job
    spec = compare.parse(text)
    return spec, compare.side_b(job, spec)


def validate(values: Mapping[str, object], job: Job) -> dict[str, str]:
    """Field key -> message when the compare settings cannot run; empty otherwise."""
    if not values.get(keys.COMPARE):
        return {}
    if job.export:
        return {keys.COMPARE: _("Compare mode cannot export a SavedModel: turn one of them off.")}
    field = keys.COMPARE_SIGNATURE if values.get(keys.COMPARE_KIND) == "signature" else keys.COMPARE
    try:
        side_b(values, job)
    except SpecError as error:
        return {field: str(error)}
    return {}


def inputs() -> None:
    st.toggle(
        _("Compare: run a second side that changes one setting"),
        key=keys.COMPARE,
        help=_(
            "Runs the same code and calls twice, side a as set above and side b with "
            "one change, and shows both with their differences."
        ),
    )
    available = kinds()
    if st.session_state.get(keys.COMPARE_KIND) not in available:
        st.session_state[keys.COMPARE_KIND] = DEFAULT_KIND
    choices = tf_choices()
    if st.session_state.get(keys.COMPARE_TF) not in choices:  # the newest installed, by default
        st.session_state[keys.COMPARE_TF] = list(choices)[-1] if choices else ""
    folded.hold(keys.COMPARE_SIGNATURE, default="")
    if not st.session_state.get(keys.COMPARE):
        folded.hold(keys.COMPARE_KIND, default=DEFAULT_KIND)
        return
    kind = st.selectbox(
        _("Side b changes"), available, key=keys.COMPARE_KIND, format_func=i18n.bound(kind_label)
    )  # AppTest formats in its own thread
    if kind == "tf":
        st.selectbox(
            _("Side b's TensorFlow"),
            list(choices),
            key=keys.COMPARE_TF,
            format_func=lambda v: choices.get(v, v),
        )
    elif kind == "signature":
        st.text_input(
            _("Side b's input_signature"),
            key=keys.COMPARE_SIGNATURE,
            placeholder=_("e.g. float32[None]; empty: no signature"),
        )
        show_error(keys.COMPARE_SIGNATURE)
    else:
        st.caption(_("Side b runs with {kind} the other way round from side a.").format(kind=kind))
    show_error(keys.COMPARE)
