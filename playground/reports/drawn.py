"""A report cut to what the page draws in bounded time, and words for what was cut.

A saved report is a file a visitor opens, checked as a worker's report is (contract/protocol.py:
any list up to 100,000 items, long texts up to 4 MiB, within the upload cap). The page's cost
grows with what it draws: a timing chart with every sample, a table row or an element per call,
warning or op, a code box per line. A real run stays far inside these caps (a plan holds at most
50 calls, timing takes at most 200 samples a mode), so they cut only a file that no run makes:
every list and mapping of the report to its first DRAWN_ITEMS (a field of TIMES_MORE more),
every text to DRAWN_CHARS (converted code, which the page diffs and maps line by line, to
CODE_CHARS), each cut named so the page can say what it left out.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..contract.i18n import _
from ..contract.job import Report
from .safe_text import code_span

DRAWN_ITEMS = 1_000
TIMES_MORE = frozenset({"samples_s"})  # a chart's points: cheap, and more show its shape
DRAWN_CHARS = 1 << 20  # the worker's own output cap (Settings.output_cap_bytes)
CODE_CHARS = 256 << 10  # a real function converts to tens of kilobytes
NOTES_SHOWN = 5


@dataclass(frozen=True)
class Cut:
    """`path` ("functions[0].calls") kept `kept` of its `total` items, or characters (`text`)."""

    path: str
    kept: int
    total: int
    text: bool = False


def fit(report: Report) -> tuple[Report, list[Cut]]:
    """The report with every list, mapping and text cut to what the page draws, and the cuts.
    Linear in the report's size; free-form values (`environment`) are bounded by the decoder."""
    cuts: list[Cut] = []
    return _fit(report, "", cuts), cuts


def limit(name: str) -> int:
    return DRAWN_ITEMS * (10 if name in TIMES_MORE else 1)


def _fit(value: Any, path: str, cuts: list[Cut], name: str = "") -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {}
        for field in dataclasses.fields(value):
            old = getattr(value, field.name)
            new = _fit(old, f"{path}.{field.name}" if path else field.name, cuts, field.name)
            if new is not old:
                changed[field.name] = new
        return dataclasses.replace(value, **changed) if changed else value
    if isinstance(value, str):
        most = CODE_CHARS if name == "converted_code" else DRAWN_CHARS
        if len(value) <= most:
            return value
        cuts.append(Cut(path, most, len(value), text=True))
        return value[:most]
    if isinstance(value, (list, tuple, dict)):
        most = limit(name)
        if len(value) > most:
            cuts.append(Cut(path, most, len(value)))
        if isinstance(value, dict):
            kept = dict(list(value.items())[:most]) if len(value) > most else value
            items = {k: _fit(v, f"{path}.{k}", cuts) for k, v in kept.items()}
            same = len(kept) == len(value) and all(items[k] is value[k] for k in items)
            return value if same else items
        kept_items = value[:most]
        fitted = [_fit(v, f"{path}[{i}]", cuts) for i, v in enumerate(kept_items)]
        if len(kept_items) == len(value) and all(a is b for a, b in zip(fitted, value)):
            return value
        return type(value)(fitted)
    return value


def notes(cuts: list[Cut]) -> list[str]:
    """What was cut, a sentence a cut, the first NOTES_SHOWN of them and a count of the rest."""
    said = [
        (
            _("{field}: its first {kept} of {total} characters are shown; the rest is not drawn.")
            if cut.text
            else _("{field}: its first {kept} of {total} items are shown; the rest is not drawn.")
        ).format(field=code_span(cut.path), kept=f"{cut.kept:,}", total=f"{cut.total:,}")
        for cut in cuts[:NOTES_SHOWN]
    ]
    if len(cuts) > NOTES_SHOWN:
        said.append(
            _("{n} more field(s) of this file are cut the same way.").format(n=len(cuts) - NOTES_SHOWN)
        )
    return said
