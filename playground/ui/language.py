"""The page's language: ?lang=zh|en (the share link), else the browser's Accept-Language, else
English; a toggle in the page switches it without touching the code, the settings or the result."""

from __future__ import annotations

import streamlit as st

from ..contract import i18n
from ..contract.i18n import _
from ..contract.share_link import P_LANG
from . import keys

NAMES = {i18n.ENGLISH: "English", i18n.CHINESE: "中文"}


def browser_language() -> str | None:
    try:
        headers = st.context.headers
        return i18n.from_accept_language(headers.get("Accept-Language") if headers else None)
    except Exception:  # noqa: BLE001 - no request context (AppTest, a bare script run)
        return None


def _chosen() -> None:
    """on_change of the toggle: from now on the URL carries the choice."""
    st.session_state[keys.LANGUAGE_CHOSEN] = True


def apply() -> str:
    """First run of a session: the URL's or the browser's language. Every run: make it current."""
    if keys.LANGUAGE not in st.session_state:
        asked = st.query_params.get(P_LANG)
        st.session_state[keys.LANGUAGE] = i18n.choose(asked, browser_language())
        st.session_state[keys.LANGUAGE_CHOSEN] = i18n.normalise(asked) is not None
    return i18n.use(st.session_state[keys.LANGUAGE])


def toggle() -> None:
    st.radio(
        _("Language"),
        i18n.LANGUAGES,
        key=keys.LANGUAGE,
        horizontal=True,
        format_func=NAMES.__getitem__,
        on_change=_chosen,
        label_visibility="collapsed",
    )


def url_params() -> dict[str, str]:
    """`lang` for the URL: when it was asked for (URL or toggle) or is not the default."""
    language = st.session_state.get(keys.LANGUAGE, i18n.ENGLISH)
    if st.session_state.get(keys.LANGUAGE_CHOSEN) or language != i18n.ENGLISH:
        return {P_LANG: i18n.SHORT[language]}
    return {}
