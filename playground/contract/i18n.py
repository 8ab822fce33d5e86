"""Translates user-visible sentences: `_("...")` looks the text up in the current language.

The current language is per context (a contextvars.ContextVar), not per process: Streamlit runs
every session's script in its own thread, so each page run calls `use(language)` once and `_`
answers in that session's language; the engine's worker calls `use(job.language)`. Catalogs
live in playground/locale/<lang>/LC_MESSAGES/playground.mo (built by `python -m
playground.contract.i18n_catalog update`, docs/i18n.md); a language without one falls back to English.

Module-level constants cannot be translated when the module is imported (no language is chosen
yet): mark them with `N_("...")`, which only marks them for extraction, and pass them through
`_()` where they are shown.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
import os
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


DOMAIN = "playground"
# The catalogs sit at the package root (playground/locale), beside every package they serve.
LOCALE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "locale")
ENGLISH, CHINESE = "en", "zh_CN"
LANGUAGES = (ENGLISH, CHINESE)
# What the URL and the CLI accept (?lang=zh, --lang zh), by the catalog's name.
SHORT = {ENGLISH: "en", CHINESE: "zh"}

_current: contextvars.ContextVar[str] = contextvars.ContextVar("playground_language", default=ENGLISH)


@cache
def translation(language: str = ENGLISH) -> gettext.NullTranslations:
    """The catalog of one language (cached: all sessions share the read-only catalogs)."""
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)


def normalise(tag: str | None) -> str | None:
    """A language tag ("zh", "zh-CN", "zh_CN.UTF-8", "en-GB", "C") as one of LANGUAGES, or None.

    Every Chinese tag maps to zh_CN: it is the only Chinese catalog, and simplified Chinese
    reads better to a zh-TW reader than English does."""
    if not tag:
        return None
    base = tag.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    if base.startswith("zh"):
        return CHINESE
    if base.startswith("en") or base in ("c", "posix"):
        return ENGLISH
    return None


def from_accept_language(header: str | None) -> str | None:
    """The best supported language of an Accept-Language header ("zh-CN,zh;q=0.9,en;q=0.8")."""
    ranked = []
    for position, part in enumerate((header or "").split(",")):
        tag, _sep, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        language = normalise(tag)
        if language and quality > 0:
            ranked.append((-quality, position, language))
    return min(ranked)[2] if ranked else None


def from_environment(environ: Mapping[str, str]) -> str | None:
    """The language of a terminal, as gettext reads it: LANGUAGE, LC_ALL, LC_MESSAGES, LANG."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            # The first one set decides, as in gettext; LANGUAGE may list several: "zh_CN:en".
            return next(filter(None, map(normalise, value.split(":"))), None)
    return None


def choose(*candidates: str | None) -> str:
    """The first candidate that names a supported language; English when none does."""
    for candidate in candidates:
        language = normalise(candidate)
        if language:
            return language
    return ENGLISH


def use(language: str | None) -> str:
    """Makes `language` current for this context (this thread's script run, this worker)."""
    chosen = choose(language)
    _current.set(chosen)
    return chosen


def current() -> str:
    return _current.get()


@contextlib.contextmanager
def using(language: str | None) -> Iterator[str]:
    """`language` for the block only: callbacks from another thread start in English."""
    token = _current.set(choose(language))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """`message` in the current language (itself in English, or when no translation exists)."""
    if not message:
        return message
    return translation(_current.get()).gettext(message)


def bound(func: Callable[..., T]) -> Callable[..., T]:
    """`func` that answers in the language current now, whichever thread calls it later (a
    widget's format_func is also called outside the page run, e.g. by AppTest)."""
    language = current()

    def call(*args: Any, **kwargs: Any) -> T:
        with using(language):
            return func(*args, **kwargs)

    return call


FULL_WIDTH_END = "。！？；：，）」』”"


def sentences(*parts: str) -> str:
    """Sentences joined as the text's language writes them: a space after "." but none after
    a full-width "。" (Chinese typography has no space between sentences)."""
    out = ""
    for part in (p for p in parts if p):
        out += part if not out or out.endswith(tuple(FULL_WIDTH_END)) else " " + part
    return out


def _p(context: str, message: str) -> str:
    """`message` as used in `context`, where one English word needs two translations
    ("Traces" the metric is 追踪次数, "Traces" the tab is 追踪)."""
    if not message:
        return message
    return translation(_current.get()).pgettext(context, message)


def N_(message: str) -> str:
    """Marks a module-level constant for extraction; translate it with `_()` where it is shown."""
    return message
