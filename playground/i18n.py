"""Marks user-visible sentences for translation: `_("...")` through Python's gettext.

Catalogs live in playground/locale/<lang>/LC_MESSAGES/playground.mo; a language without one
falls back to the English source text.
"""
from __future__ import annotations

import gettext
import os

DOMAIN = "playground"
LOCALE_DIR = os.path.join(os.path.dirname(__file__), "locale")


def translation(language: str = "en") -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)


_ = translation().gettext
