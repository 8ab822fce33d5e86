"""A request body to JSON, and JSON to an answer, for input nobody vouches for: the nesting is
bounded before the parser recurses, every string is text UTF-8 can carry, and an answer never
fails to encode."""

from __future__ import annotations

import array
import itertools
import json
from typing import Any

from starlette.responses import JSONResponse

from ..contract.decode import outside_strings
from ..contract.i18n import _

MAX_DEPTH = 64  # a request nests 2 deep; json's C parser recurses once per level

_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


class BodyError(ValueError):
    """A body that is not a JSON value the API reads; the message says why."""


def too_deep(body: bytes, limit: int = MAX_DEPTH, structure: bytes | None = None) -> bool:
    """Whether [ and { nest past `limit` outside strings: in linear time, without recursion,
    and an upper bound of the depth json's parser reaches on any prefix it accepts.
    `structure`: outside_strings(body), where the caller has it."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # too few brackets to nest that deep
    brackets = (outside_strings(body) if structure is None else structure).translate(None, _NOT_BRACKETS)
    steps = array.array("b", brackets.translate(_STEPS))  # +1 an opening, -1 a closing
    return max(itertools.accumulate(steps), default=0) > limit


def too_many(body: bytes, limit: int) -> tuple[bool, bytes | None]:
    """Whether JSON text holds more than `limit` values, counted in its bytes (C-speed counts,
    never a Python step per value), and its structure (outside_strings) where it was made.
    First its strings: each has two quotes that no backslash escapes, so (quotes - quotes after
    a backslash) / 2 never counts more strings than there are. Only then, with few strings, is
    the structure cut out (one regex match a string), and its commas counted: each separates
    two values. A body over either count is refused before json.loads builds a million objects."""
    if (body.count(b'"') - body.count(b'\\"')) // 2 > limit:
        return True, None
    if body.count(b",") < limit:
        return False, None  # too few commas anywhere to separate more values
    structure = outside_strings(body)
    return structure.count(b",") >= limit, structure


def loads(body: bytes, max_values: int | None = None) -> Any:
    """The body's JSON value, or BodyError: not UTF-8 (RFC 8259; the bytes scanned for depth
    are then the characters parsed), more than `max_values` values, not JSON, nested over
    MAX_DEPTH, NaN or Infinity, or a string that is no text (a lone surrogate such as \\ud800).
    The counts come first: they cost microseconds a megabyte, the decoding milliseconds."""
    structure = None
    if max_values is not None:
        over, structure = too_many(body, max_values)
        if over:
            raise BodyError(
                _("The body holds more than {limit} JSON values, the most a request can hold.").format(
                    limit=max_values
                )
            )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyError(_("The body is not JSON: {error}").format(error=error)) from None
    if too_deep(body, structure=structure):
        raise BodyError(_("The body's JSON is nested too deeply."))
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:  # unreachable after too_deep; kept as the backstop
        raise BodyError(_("The body's JSON is nested too deeply.")) from None
    except ValueError as error:
        raise BodyError(_("The body is not JSON: {error}").format(error=error)) from None
    if not _all_text(value):
        raise BodyError(_("The body holds a string that is not text (a lone surrogate such as \\ud800)."))
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(_("{name} is not a number JSON allows").format(name=name))


def _all_text(value: Any) -> bool:
    """Whether every key and string in a decoded value encodes as UTF-8 (walked with a stack)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


class Answer(JSONResponse):
    """JSON that always encodes: a lone surrogate in a string (a report's, a refusal's echo of
    the request) is written as its \\uXXXX escape, which is the same JSON, not a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(
            content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
        ).encode("utf-8", "backslashreplace")
