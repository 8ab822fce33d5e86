"""Expanders whose contents are drawn only while they are open.

A folded expander's widgets still cost the browser their rendering on every page open (the
options' widgets, the uploader and the argument builder: 0.2 to 0.3 s of a first visit on this
machine, in probes with bench/page_clock.py's stamps), so these draw nothing inside until
opened; opening one reruns the page. The widgets' values are held meanwhile (`hold`, which
every widget the page sometimes leaves undrawn uses: a closed tab's controls, a hidden field):
Streamlit drops the state of a widget that a run does not draw, but keeps a value the run
itself assigned.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

_NONE = object()


def hold(*names: str, default: object = _NONE) -> None:
    """Keeps these keys' values through a run that does not draw their widgets; a key without
    a value gets `default`, if one is given."""
    for name in names:
        if name in st.session_state:
            st.session_state[name] = st.session_state[name]
        elif default is not _NONE:
            st.session_state[name] = default


def expander(title: str, key: str, held: Iterable[str] = (), open_now: bool = False) -> DeltaGenerator | None:
    """The expander's container while it is open, else None (and `held` keep their values).
    `open_now` opens it (a field's error, settings that came from a link); it never closes
    by itself, not even when its title changes (a title is part of Streamlit's widget id)."""
    if open_now:
        st.session_state[key] = True
    else:
        hold(key)
    box = st.expander(title, key=key, on_change="rerun")
    if box.open:
        return box
    hold(*held)
    return None
