"""Untrusted JSON into typed dataclasses: every type, length, count and depth checked.

`decode(Report, data, Bounds())` is what `job.from_dict` is for trusted data, but for data a
hostile process wrote (a worker's report and events, contract/protocol.py): a wrong type, an
unknown enumeration value, a string or list over its bound, or nesting deeper than the bound
raises DecodeError naming the field ("functions[0].calls[3].args"), never TypeError or
RecursionError. The walk follows the dataclasses' type hints, so its depth is the schema's;
only `Any` values (free-form dicts such as `environment`) are walked by depth, up to a bound.
`outside_strings` gives the structure of JSON text before anything is parsed, so a reader can
count its values or its nesting first (contract/protocol.py, api/body.py).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

_INT_BOUND = 1 << 53  # what a JSON reader in any language keeps exact
# A JSON string, possessively matched (linear: no backtracking into it).
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)


def outside_strings(text: bytes) -> bytes:
    """JSON text with every complete string removed: its brackets, commas and scalars, in one
    linear pass. An unterminated string is left in, so counts taken on it are upper bounds."""
    return _STRING.sub(b"", text)


class DecodeError(ValueError):
    """A value that does not fit its declared type or bounds; `path` names the field."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'message'}: {problem}")
        self.path, self.problem = path, problem


@dataclass(frozen=True)
class Bounds:
    """How large a decoded value may be. `long_text` names fields whose strings may reach
    `long_text_chars` (captured output, HLO, tracebacks); every other string `text_chars`."""

    text_chars: int = 16 << 10
    long_text_chars: int = 4 << 20
    long_text: frozenset[str] = frozenset()
    list_items: int = 20_000
    dict_items: int = 20_000
    key_chars: int = 512
    any_depth: int = 8  # free-form values (dict[str, Any]) nest at most this deep
    any_items: int = 2_000


def decode(cls: Any, data: Any, bounds: Bounds = Bounds(), path: str = "") -> Any:
    """`data` (from json.loads) as an instance of `cls`, or DecodeError."""
    try:
        return _decode(cls, data, bounds)
    except _Invalid as error:
        where = path + error.where
        raise DecodeError(where if path else where.removeprefix("."), error.problem) from None


class _Invalid(Exception):
    """DecodeError on its way up: `where` grows by a field or an index a level, so the common
    case, a value that fits, builds no path at all (a report of 300,000 numbers built one each)."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(problem)
        self.where, self.problem = where, problem


def _decode(cls: Any, data: Any, bounds: Bounds) -> Any:
    origin, args = _shape(cls)
    if origin is _DATACLASS:
        return _dataclass(cls, data, bounds)
    if cls is Any:
        return _free(data, bounds, bounds.any_depth)
    if origin is Union:
        if args[1] and (data is None or _non_finite(data)):
            return None  # NaN or infinity (json.loads accepts them) where None fits
        if len(args[0]) != 1:
            raise _Invalid("", "a union this decoder does not know")
        return _decode(args[0][0], data, bounds)
    if origin is Literal:
        if not isinstance(data, str) or data not in args:
            raise _Invalid("", "not one of " + ", ".join(map(repr, args)))
        return data
    if origin in (list, tuple):
        if not isinstance(data, list):
            raise _Invalid("", "not a list")
        if len(data) > bounds.list_items:
            raise _Invalid("", f"more than {bounds.list_items} items")
        item = args[0]
        items = _scalars(item, data, bounds)
        if items is None:
            items = []
            for i, v in enumerate(data):
                try:
                    items.append(_decode(item, v, bounds))
                except _Invalid as error:
                    raise _Invalid(f"[{i}]{error.where}", error.problem) from None
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(data, dict):
            raise _Invalid("", "not an object")
        if len(data) > bounds.dict_items:
            raise _Invalid("", f"more than {bounds.dict_items} entries")
        out = {}
        for k, v in data.items():
            try:
                out[_key_of(k, bounds)] = _decode(args[1], v, bounds)
            except _Invalid as error:
                raise _Invalid(f".{k}{error.where}", error.problem) from None
        return out
    return _scalar(cls, data, bounds)


_DATACLASS = object()  # _shape's origin for a dataclass


@functools.cache
def _shape(cls: Any) -> tuple[Any, Any]:
    """(origin, arguments) of a type, worked out once per type, not once per value: a union's
    are (its types but None, whether None is one of them)."""
    if dataclasses.is_dataclass(cls):
        return _DATACLASS, ()
    origin = typing.get_origin(cls)
    args = typing.get_args(cls)
    if origin in (Union, types.UnionType):
        return Union, (tuple(a for a in args if a is not type(None)), type(None) in args)
    return origin, args


def _scalars(item: Any, data: list, bounds: Bounds) -> list | None:
    """A list of plain numbers or strings that all fit, checked in one pass of builtins; None
    when the list is of another type or one of its items does not fit (the item-by-item walk
    then says which)."""
    if item is float and all(type(v) is float for v in data) and all(map(math.isfinite, data)):
        return list(data)
    if item is str and all(type(v) is str for v in data):
        if max(map(len, data), default=0) <= bounds.text_chars:
            return list(data)
    if item is int and all(type(v) is int for v in data):
        if max(map(abs, data), default=0) <= _INT_BOUND:
            return list(data)
    return None


def _dataclass(cls: Any, data: Any, bounds: Bounds) -> Any:
    if not isinstance(data, dict):
        raise _Invalid("", "not an object")
    values = {}
    hints = _hints(cls)
    for f in _fields(cls):
        if f.name in data:
            try:
                values[f.name] = _decode(hints[f.name], data[f.name], _for_field(bounds, f.name))
            except _Invalid as error:
                raise _Invalid(f".{f.name}{error.where}", error.problem) from None
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _Invalid(f".{f.name}", "missing")
    return cls(**values)  # unknown keys are dropped, never passed on


@functools.lru_cache(maxsize=256)
def _for_field(bounds: Bounds, name: str) -> Bounds:
    return (
        dataclasses.replace(bounds, text_chars=bounds.long_text_chars) if name in bounds.long_text else bounds
    )


def _scalar(cls: Any, data: Any, bounds: Bounds) -> Any:
    if cls is str:
        if not isinstance(data, str):
            raise _Invalid("", "not a string")
        if len(data) > bounds.text_chars:
            raise _Invalid("", f"longer than {bounds.text_chars} characters")
        return data
    if cls is bool:
        if not isinstance(data, bool):
            raise _Invalid("", "not true or false")
        return data
    if cls is int:
        if not isinstance(data, int) or isinstance(data, bool) or abs(data) > _INT_BOUND:
            raise _Invalid("", "not an integer in range")
        return data
    if cls is float:
        if not isinstance(data, (int, float)) or isinstance(data, bool):
            raise _Invalid("", "not a number")
        if isinstance(data, int) and abs(data) > _INT_BOUND:  # float() of a huge one overflows
            raise _Invalid("", "not a finite number")
        number = float(data)
        if not math.isfinite(number):
            raise _Invalid("", "not a finite number")
        return number
    raise _Invalid("", f"a type this decoder does not know ({cls!r})")


def _non_finite(data: Any) -> bool:
    return isinstance(data, float) and not math.isfinite(data)


def _key_of(key: Any, bounds: Bounds) -> str:
    if not isinstance(key, str) or len(key) > bounds.key_chars:
        raise _Invalid("", "a key that is not a short string")
    return key


def _free(data: Any, bounds: Bounds, depth: int) -> Any:
    """A free-form JSON value (settings, environment): plain types, bounded in depth and size."""
    if data is None or isinstance(data, (bool, int, float)):
        return _scalar(type(data), data, bounds) if data is not None else None
    if isinstance(data, str):
        return _scalar(str, data, bounds)
    if depth <= 0:
        raise _Invalid("", f"nested deeper than {bounds.any_depth} levels")
    if isinstance(data, list):
        if len(data) > bounds.any_items:
            raise _Invalid("", f"more than {bounds.any_items} items")
        out = []
        for i, v in enumerate(data):
            try:
                out.append(_free(v, bounds, depth - 1))
            except _Invalid as error:
                raise _Invalid(f"[{i}]{error.where}", error.problem) from None
        return out
    if isinstance(data, dict):
        if len(data) > bounds.any_items:
            raise _Invalid("", f"more than {bounds.any_items} entries")
        values = {}
        for k, v in data.items():
            try:
                values[_key_of(k, bounds)] = _free(v, bounds, depth - 1)
            except _Invalid as error:
                raise _Invalid(f".{k}{error.where}", error.problem) from None
        return values
    raise _Invalid("", "not a JSON value")


@functools.cache
def _fields(cls: Any) -> tuple[dataclasses.Field, ...]:
    return dataclasses.fields(cls)


@functools.cache
def _hints(cls: Any) -> Mapping[str, Any]:
    return typing.get_type_hints(cls)
