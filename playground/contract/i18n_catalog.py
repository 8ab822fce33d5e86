"""Keeps the message catalogs in step with the code: extract `_()`/`N_()` strings, update each
language's .po, compile the .mo files the app reads (Babel; a developer's and CI's tool only,
the app itself needs nothing but Python's gettext and the committed .mo).

    python -m playground.contract.i18n_catalog update     # extract -> playground.pot -> update .po -> .mo
    python -m playground.contract.i18n_catalog compile    # only .po -> .mo (after editing translations)
    python -m playground.contract.i18n_catalog check      # exit 1 if a string is untranslated or stale

Location comments carry file names without line numbers and messages are sorted, so a branch
that adds one string changes the catalogs in one place (merges stay small); docs/i18n.md.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterable, Sequence

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from .i18n import DOMAIN, ENGLISH, LANGUAGES, LOCALE_DIR

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = os.path.join(LOCALE_DIR, f"{DOMAIN}.pot")
KEYWORDS = {"_": None, "N_": None, "_p": ((1, "c"), 2)}

# The code that can show text to a person: the package and the Streamlit entry point.
METHOD_MAP = [
    ("playground/locale/**", "ignore"),
    ("playground/**.py", "python"),
    ("app.py", "python"),
    # Nothing else: a file no pattern names is skipped. (No ("**", "ignore") here: Babel 2.18+
    # prunes every directory an ignore pattern matches, and the template came out empty.)
]
TRANSLATED = tuple(language for language in LANGUAGES if language != ENGLISH)
PROJECT = "tf.function playground"


def po_path(language: str) -> str:
    return os.path.join(LOCALE_DIR, language, "LC_MESSAGES", f"{DOMAIN}.po")


def mo_path(language: str) -> str:
    return os.path.join(LOCALE_DIR, language, "LC_MESSAGES", f"{DOMAIN}.mo")


def extract(root: str = ROOT) -> Catalog:
    """Every marked string of the code as a template catalog (no translations)."""
    template = Catalog(
        project=PROJECT,
        version="1",
        domain=DOMAIN,
        fuzzy=False,
        msgid_bugs_address="",
        copyright_holder=PROJECT + " authors",
        last_translator="",
        language_team="",
    )
    for filename, _lineno, message, comments, context in extract_from_dir(
        root, METHOD_MAP, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
    ):
        if isinstance(message, tuple):  # plural forms are not used: "(s)" reads in both languages
            message = message[0]
        if message:
            template.add(
                message,
                None,
                [(filename, None)],  # type: ignore[list-item]  # Babel takes lineno None (no line numbers); its hint says int
                auto_comments=comments,
                context=context,
            )
    return template


def _write_po(catalog: Catalog, path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    buffer = io.BytesIO()
    write_po(
        buffer,
        catalog,
        width=100,
        sort_output=True,
        include_lineno=False,
        ignore_obsolete=True,
        omit_header=False,
    )
    with open(path, "wb") as handle:
        handle.write(buffer.getvalue())


def read(path: str, language: str | None = None) -> Catalog:
    with open(path, "rb") as handle:
        return read_po(handle, locale=language, domain=DOMAIN)


def compiled(catalog: Catalog) -> bytes:
    """The .mo bytes of a catalog; fuzzy entries are left out, as gettext would never trust them."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def _stable_header(catalog: Catalog, previous: Catalog | None) -> None:
    """Keeps dates unchanged while the messages are: a rerun on merged code makes no diff."""
    if previous is not None:
        catalog.creation_date = previous.creation_date
        catalog.revision_date = previous.revision_date


def update(languages: Iterable[str] = TRANSLATED) -> list[str]:
    """Extracts the template and merges it into each language's .po; returns what changed."""
    template = extract()
    previous = read(TEMPLATE) if os.path.exists(TEMPLATE) else None
    _stable_header(template, previous)
    _write_po(template, TEMPLATE)
    changed = []
    for language in languages:
        path = po_path(language)
        if os.path.exists(path):
            catalog = read(path, language)
            before = {(m.context, m.id): m.string for m in catalog if m.id}
            catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
            after = {(m.context, m.id): m.string for m in catalog if m.id}
            if before != after:
                changed.append(language)
        else:
            catalog = Catalog(
                locale=language,
                domain=DOMAIN,
                project=PROJECT,
                version="1",
                fuzzy=False,
                copyright_holder=PROJECT + " authors",
            )
            catalog.update(template, no_fuzzy_matching=True)
            changed.append(language)
        _write_po(catalog, path)
    return changed


def compile_all(languages: Iterable[str] = TRANSLATED) -> None:
    for language in languages:
        data = compiled(read(po_path(language), language))
        with open(mo_path(language), "wb") as handle:
            handle.write(data)


def missing(catalog: Catalog, template: Catalog) -> list[str]:
    """msgids of the code without a finished translation in `catalog`."""
    gaps: list[str] = []
    for message in template:
        if not message.id:
            continue
        # extract() adds singular ids only; a plural's is (singular, plural), named by its singular
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        found = catalog.get(message.id, context=message.context)
        if found is None or not found.string or found.fuzzy:
            gaps.append(msgid if not message.context else f"{message.context}|{msgid}")
    return sorted(gaps)


def main(argv: Sequence[str] | None = None) -> int:
    command = (list(argv if argv is not None else sys.argv[1:]) or ["update"])[0]
    if command == "update":
        changed = update()
        compile_all()
        print(f"catalogs updated ({', '.join(changed) or 'no message changed'}); .mo compiled")
    elif command == "compile":
        compile_all()
        print("compiled " + ", ".join(mo_path(language) for language in TRANSLATED))
    elif command != "check":
        print(f"unknown command {command!r}: update, compile or check", file=sys.stderr)
        return 2
    template, status = extract(), 0
    if not len(template):  # an extraction that finds nothing would pass every check
        print("no translatable string found: the extraction itself is broken", file=sys.stderr)
        return 1
    for language in TRANSLATED:
        gaps = missing(read(po_path(language), language), template)
        for msgid in gaps:
            print(f"{language}: untranslated: {msgid[:90]!r}", file=sys.stderr)
        status = status or (1 if gaps else 0)
    if status:
        print(f"{len(gaps)} message(s) need a translation in {po_path(TRANSLATED[-1])}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
