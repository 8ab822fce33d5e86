"""Checks pasted source is text Python can compile and the sandbox can store (no TensorFlow)."""

from __future__ import annotations

from .errors import SourceError
from .i18n import _


def check_text(source: str) -> None:
    """Refuses what Python cannot compile or store as text, naming the line."""
    for number, line in enumerate(source.splitlines(), 1):
        if "\0" in line:
            raise SourceError(
                _("the code contains a null byte on line {number}; paste plain text").format(number=number)
            )
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise SourceError(
                _(
                    "the code is not valid UTF-8 text (line {number}); save it as UTF-8 and paste again"
                ).format(number=number)
            ) from None
