"""Each gallery example's report, recorded by the real engine (scripts/record_gallery.py), in
each language the page speaks: the page draws it at once when an example opens untouched, so a
first visit sees a result before any Run, and a live Run replaces it. The tests hold each
recording to a live run of the same example (tests/unit/gallery/test_gallery.py).

Pure reading: no TensorFlow. The files are the package's own, read once per process.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ..contract.job import Report

FOLDER = Path(__file__).with_name("recorded")


def path(slug: str, language: str) -> Path:
    return FOLDER / language / f"{slug}.json"


@functools.cache
def recorded(slug: str, language: str) -> Report | None:
    """The example's recorded report in `language`, or None when it has none."""
    file = path(slug, language)
    return Report.from_json(file.read_text(encoding="utf-8")) if file.is_file() else None
