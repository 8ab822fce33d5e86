"""Figures built once per report, not once per rerun. Streamlit runs the whole page script on
every press, and a report's charts do not change between presses: the Traces tab's chart was a
quarter of a rerun's CPU. A figure is kept per session, keyed by its builder, the object it
draws (held, so that its id cannot be reused), its other arguments and the page's language."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from ..contract import i18n
from . import keys

T = TypeVar("T")
KEPT = 24  # figures per session: every tab's of the last few reports


def figure(build: Callable[..., T], subject: Any, *args: Any, **kwargs: Any) -> T:
    """build(subject, *args, **kwargs), or what it returned last time for the same subject and
    arguments (a named function: two lambdas would share a name)."""
    store: dict = st.session_state.setdefault(keys.FIGURES, {})
    key = (
        build.__module__,
        build.__qualname__,
        id(subject),
        args,
        tuple(sorted(kwargs.items())),
        i18n.current(),
    )
    held = store.get(key)
    if held is not None and held[0] is subject:
        store[key] = store.pop(key)  # most recently used last
        return held[1]
    made = build(subject, *args, **kwargs)
    store[key] = (subject, made)
    while len(store) > KEPT:
        store.pop(next(iter(store)))
    return made
