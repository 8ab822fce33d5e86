"""tf.function options: input_signature, reduce_retracing, jit_compile, timing, sweep, export, device."""

from __future__ import annotations

import os
from collections.abc import Callable

import streamlit as st

from ..contract import versions
from ..contract.config import Settings
from ..contract.i18n import N_, _
from ..contract.options import BY_NAME, NAMES, OPTIONS
from . import folded, keys
from .plan import show_error

TIMING_LABEL = BY_NAME["timing"].label  # named again by the Timing tab's hint
# The options this panel lays out by hand; any other boolean option of the table gets a toggle.
LAID_OUT = {
    "signature",
    "reduce_retracing",
    "jit_compile",
    "timing",
    "timing_budget_s",
    "sweep",
    "device",
    "numbers",
    "tolerance",
}


def gpu_present() -> bool:
    # Checked without TF: the device nodes exist only on a machine with an NVIDIA GPU.
    return os.path.exists("/dev/nvidia0")


# (key, default, label) of each setting the panel's title names while it is not the default.
SETTINGS = (
    (keys.SIGNATURE, "", "input_signature"),
    (keys.REDUCE_RETRACING, False, "reduce_retracing"),
    (keys.JIT_COMPILE, False, "XLA"),
    (keys.TIMING, False, N_("timing")),
    (keys.EXPORT, False, N_("export")),
    (keys.TF_VERSION, "", "TensorFlow"),
    (keys.COMPARE, False, N_("compare")),
) + tuple(
    (o.name, o.default, o.label or o.name) for o in OPTIONS if o.kind is bool and o.name not in LAID_OUT
)


def chosen_keys() -> list[str]:
    """The keys of the settings that differ from their defaults (the language does not matter)."""
    return [key for key, default, _label in SETTINGS if (st.session_state.get(key) or default) != default]


def chosen() -> list[str]:
    labels = {key: label for key, _default, label in SETTINGS}
    return [_(labels[key]) for key in chosen_keys()]


# The panel's widgets, whose values are held while it is folded and they are not drawn.
PANEL_KEYS = (
    *NAMES,
    keys.EXPORT,
    keys.TF_VERSION,
    keys.COMPARE,
    keys.COMPARE_KIND,
    keys.COMPARE_TF,
    keys.COMPARE_SIGNATURE,
)


def panel(draw: Callable[[], None]) -> None:
    """The run's options in one panel below the plan, so the code and Run keep the first
    screen, drawn only while open. Its title names the settings that differ from TensorFlow's
    defaults; it opens by itself when that list changes to a non-empty one (a share link, an
    example) and when one of its fields has an error."""
    errors = set(st.session_state.get(keys.FIELD_ERRORS, {})) & {
        keys.SIGNATURE,
        keys.TIMING_BUDGET,
        keys.SWEEP,
        keys.COMPARE_SIGNATURE,
    }
    named = chosen_keys()
    # Opens when something new asks for it, not on every run while it does: the user may fold it.
    new_names = bool(named) and named != st.session_state.get(keys.OPTIONS_NAMED)
    new_errors = bool(errors - set(st.session_state.get(keys.OPTIONS_ERRORS, ())))
    st.session_state[keys.OPTIONS_NAMED], st.session_state[keys.OPTIONS_ERRORS] = named, sorted(errors)
    names = chosen()
    title = _("Options") + (": " + ", ".join(names) if names else "")
    box = folded.expander(title, keys.OPTIONS_PANEL, held=PANEL_KEYS, open_now=new_names or new_errors)
    if box is not None:
        with box:
            draw()


def options(max_budget_s: float) -> None:
    st.text_input(
        BY_NAME["signature"].label,
        key=keys.SIGNATURE,
        placeholder=_("e.g. float32[None,3]"),
        help=_(BY_NAME["signature"].help),
    )
    show_error(keys.SIGNATURE)
    for name in ("reduce_retracing", "jit_compile"):
        toggle(name)
    c1, c2 = st.columns(2)
    c1.toggle(_(TIMING_LABEL), key=keys.TIMING)
    if float(st.session_state.get(keys.TIMING_BUDGET) or 2.0) > max_budget_s:
        st.session_state[keys.TIMING_BUDGET] = float(max_budget_s)
    # Always rendered (disabled when off) so its value survives toggling timing.
    c2.number_input(
        _("Timing budget (s)"),
        key=keys.TIMING_BUDGET,
        min_value=0.1,
        max_value=float(max_budget_s),
        step=0.5,
        disabled=not st.session_state.get(keys.TIMING),
    )
    show_error(keys.TIMING_BUDGET)
    if st.session_state.get(keys.TIMING):
        st.text_input(
            _("Size sweep (optional)"),
            key=keys.SWEEP,
            placeholder=_("e.g. x[0]=16,64,256,1024"),
            help=_(
                "ARG[DIM]=SIZE,...: time the last call of the plan with that dimension "
                "of that argument (name or position) set to each size."
            ),
        )
        show_error(keys.SWEEP)
    else:  # keep the text while the field is hidden (Streamlit drops unrendered widget state)
        folded.hold(keys.SWEEP, default="")
    n1, n2 = st.columns(2)
    with n1:
        toggle("numbers")
    if st.session_state.get("tolerance") is None:
        st.session_state["tolerance"] = BY_NAME["tolerance"].default
    # Always rendered (disabled when off) so its value survives toggling the comparison.
    n2.number_input(
        _(BY_NAME["tolerance"].label),
        key="tolerance",
        min_value=1e-12,
        max_value=0.5,
        format="%g",
        help=_(BY_NAME["tolerance"].help),
        disabled=not st.session_state.get("numbers"),
    )
    show_error("tolerance")
    st.toggle(
        _("Export SavedModel (and a TensorBoard graph log)"),
        key=keys.EXPORT,
        help=_(
            "Saves the function as a SavedModel, reloads it in a fresh worker and checks "
            "each signature against the original outputs."
        ),
    )
    if gpu_present():
        st.session_state.setdefault(keys.DEVICE, "auto")
        st.radio(_(BY_NAME["device"].label), BY_NAME["device"].choices, key=keys.DEVICE, horizontal=True)
    for o in OPTIONS:
        if o.kind is bool and o.name not in LAID_OUT:
            toggle(o.name)


def toggle(name: str) -> None:
    """A boolean option's toggle, labelled and explained by its row of the table."""
    row = BY_NAME[name]
    st.toggle(_(row.label) if row.label else name, key=name, help=_(row.help) if row.help else None)


def tf_choices(settings: Settings) -> dict[str, str]:
    """Job.tf_version -> its label, for each installed TensorFlow ("" the default); empty where
    only the default is installed."""
    installed = [(v.version, v.default) for v in versions.installed(settings)]  # read once a minute
    if len(installed) < 2:
        return {}
    return {
        ("" if default else version): (
            _("{version} (default)").format(version=version) if default else version
        )
        for version, default in installed
    }


def tf_version_picker(settings: Settings) -> None:
    """Which installed TensorFlow runs the job; drawn only where more than one is installed."""
    choices = tf_choices(settings)
    if not choices:
        st.session_state[keys.TF_VERSION] = ""
        return
    if st.session_state.get(keys.TF_VERSION) not in choices:
        st.session_state[keys.TF_VERSION] = ""
    st.selectbox(
        _("TensorFlow version"),
        list(choices),
        key=keys.TF_VERSION,
        format_func=choices.__getitem__,
        help=_("Each version runs in its own sandboxed workers; `python -m playground versions` lists them."),
    )
