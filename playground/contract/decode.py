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
    origin = typing.get_origin(cls)
    if dataclasses.is_dataclass(cls):
        return _dataclass(cls, data, bounds, path)
    if cls is Any:
        return _free(data, bounds, path, bounds.any_depth)
    if origin in (Union, types.UnionType):
        options = typing.get_args(cls)
        if type(None) in options and (data is None or _non_finite(data)):
            return None  # NaN or infinity (json.loads accepts them) where None fits
        inner = [a for a in options if a is not type(None)]
        if len(inner) != 1:
            raise DecodeError(path, "a union this decoder does not know")
        return decode(inner[0], data, bounds, path)
    if origin is Literal:
        if not isinstance(data, str) or data not in typing.get_args(cls):
            raise DecodeError(path, "not one of " + ", ".join(map(repr, typing.get_args(cls))))
        return data
    if origin in (list, tuple):
        if not isinstance(data, list):
            raise DecodeError(path, "not a list")
        if len(data) > bounds.list_items:
            raise DecodeError(path, f"more than {bounds.list_items} items")
        item = typing.get_args(cls)[0]
        items = [decode(item, v, bounds, f"{path}[{i}]") for i, v in enumerate(data)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        _key, value = typing.get_args(cls)
        if not isinstance(data, dict):
            raise DecodeError(path, "not an object")
        if len(data) > bounds.dict_items:
            raise DecodeError(path, f"more than {bounds.dict_items} entries")
        return {_key_of(k, bounds, path): decode(value, v, bounds, f"{path}.{k}") for k, v in data.items()}
    return _scalar(cls, data, bounds, path)


def _dataclass(cls: Any, data: Any, bounds: Bounds, path: str) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(path, "not an object")
    values = {}
    for f in _fields(cls):
        where = f"{path}.{f.name}" if path else f.name
        if f.name in data:
            values[f.name] = decode(_hints(cls)[f.name], data[f.name], _for_field(bounds, f.name), where)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise DecodeError(where, "missing")
    return cls(**values)  # unknown keys are dropped, never passed on


def _for_field(bounds: Bounds, name: str) -> Bounds:
    return (
        dataclasses.replace(bounds, text_chars=bounds.long_text_chars) if name in bounds.long_text else bounds
    )


def _scalar(cls: Any, data: Any, bounds: Bounds, path: str) -> Any:
    if cls is str:
        if not isinstance(data, str):
            raise DecodeError(path, "not a string")
        if len(data) > bounds.text_chars:
            raise DecodeError(path, f"longer than {bounds.text_chars} characters")
        return data
    if cls is bool:
        if not isinstance(data, bool):
            raise DecodeError(path, "not true or false")
        return data
    if cls is int:
        if not isinstance(data, int) or isinstance(data, bool) or abs(data) > _INT_BOUND:
            raise DecodeError(path, "not an integer in range")
        return data
    if cls is float:
        if not isinstance(data, (int, float)) or isinstance(data, bool):
            raise DecodeError(path, "not a number")
        number = float(data)
        if not math.isfinite(number):
            raise DecodeError(path, "not a finite number")
        return number
    raise DecodeError(path, f"a type this decoder does not know ({cls!r})")


def _non_finite(data: Any) -> bool:
    return isinstance(data, float) and not math.isfinite(data)


def _key_of(key: Any, bounds: Bounds, path: str) -> str:
    if not isinstance(key, str) or len(key) > bounds.key_chars:
        raise DecodeError(path, "a key that is not a short string")
    return key


def _free(data: Any, bounds: Bounds, path: str, depth: int) -> Any:
    """A free-form JSON value (settings, environment): plain types, bounded in depth and size."""
    if data is None or isinstance(data, (bool, int, float)):
        return _scalar(type(data), data, bounds, path) if data is not None else None
    if isinstance(data, str):
        return _scalar(str, data, bounds, path)
    if depth <= 0:
        raise DecodeError(path, f"nested deeper than {bounds.any_depth} levels")
    if isinstance(data, list):
        if len(data) > bounds.any_items:
            raise DecodeError(path, f"more than {bounds.any_items} items")
        return [_free(v, bounds, f"{path}[{i}]", depth - 1) for i, v in enumerate(data)]
    if isinstance(data, dict):
        if len(data) > bounds.any_items:
            raise DecodeError(path, f"more than {bounds.any_items} entries")
        return {_key_of(k, bounds, path): _free(v, bounds, f"{path}.{k}", depth - 1) for k, v in data.items()}
    raise DecodeError(path, "not a JSON value")


@functools.cache
def _fields(cls: Any) -> tuple[dataclasses.Field, ...]:
    return dataclasses.fields(cls)


@functools.cache
def _hints(cls: Any) -> Mapping[str, Any]:
    return typing.get_type_hints(cls)
