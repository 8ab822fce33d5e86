"""playground/api/body.py: a request body read as JSON with its nesting bounded before json's
recursive parser sees it, every string text, and an answer that always encodes."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.api import body

# Strings full of what could fool a scan for brackets: brackets, quotes, backslashes, escapes.
TRICKY = st.text(alphabet=st.sampled_from('[]{}"\\/ab\n\u00e9\u4e2d'), max_size=12)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=40,
)


def true_depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(true_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(true_depth, value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans(), st.integers(0, 6))
def test_the_scan_finds_the_depth_the_parser_would_reach(value, ascii_only, limit):
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert body.too_deep(text, limit) == (true_depth(value) > limit)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60) | TRICKY.map(str.encode), st.integers(0, 4))
def test_on_any_bytes_the_scan_bounds_what_the_parser_reaches(data, limit):
    """The scan never says shallow where json would recurse deeper: on the longest prefix json
    accepts, its depth is at most the scan's."""
    if body.too_deep(data, limit):
        return
    try:
        json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return
    assert true_depth(json.loads(data)) <= limit


@pytest.mark.parametrize(
    "data", [b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000, b"[" * 100_000]
)  # and unterminated
def test_a_deep_body_is_refused_without_recursing(data):
    limit = sys.getrecursionlimit()
    with pytest.raises(body.BodyError, match="nested too deeply"):
        body.loads(data)
    assert sys.getrecursionlimit() == limit


def test_the_depth_a_request_needs_is_read():
    request = {"source": "x = [[[[1]]]]\n" * 100, "calls": ["float32[3]", "[[1, 2]]"]}
    assert body.loads(json.dumps(request).encode()) == request
    nested = b"[" * body.MAX_DEPTH + b"]" * body.MAX_DEPTH
    assert body.loads(nested) is not None
    with pytest.raises(body.BodyError):
        body.loads(b"[" + nested + b"]")


@pytest.mark.parametrize(
    "data, words",
    [
        (b'{"source": "x", "timeout_s": NaN}', "NaN is not a number"),
        (b'{"source": "x", "timeout_s": -Infinity}', "-Infinity is not a number"),
        (b'{"source": "\\ud800"}', "not text"),
        (b'{"\\udfff": 1}', "not text"),
        (b'{"source": ["\\ud800\\ud800"]}', "not text"),
        (b"\xff\xfe{\x00}\x00", "not JSON"),  # UTF-16: RFC 8259 says UTF-8
        (b"\xef\xbb\xbf{}", "not JSON"),  # a byte order mark
        (b"", "not JSON"),
    ],
)
def test_what_is_not_a_json_request_is_a_body_error(data, words):
    with pytest.raises(body.BodyError, match=words):
        body.loads(data)


def test_a_surrogate_pair_is_text():
    assert body.loads(b'{"source": "\\ud83d\\ude00"}') == {"source": "\U0001f600"}


def test_an_answer_always_encodes_and_says_the_same():
    for value in (
        {"message": "unknown field '\ud800'", "field": "\ud800"},
        {"message": "\u4e2d\u6587", "n": 1},
    ):
        rendered = body.Answer(value).body
        assert json.loads(rendered) == value
    assert "\u4e2d".encode() in body.Answer({"m": "\u4e2d"}).body  # Chinese stays readable


def values_in(value) -> int:
    """Every JSON value in it: containers, keys and scalars."""
    if isinstance(value, list):
        return 1 + sum(map(values_in, value))
    if isinstance(value, dict):
        return 1 + len(value) + sum(map(values_in, value.values()))
    return 1


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans())
def test_the_count_never_refuses_a_body_within_its_limit(value, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert not body.too_many(text, values_in(value))[0]


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, min_size=2, max_size=60) | st.lists(st.integers(), min_size=2, max_size=60))
def test_the_count_refuses_a_list_of_one_more(items):
    text = json.dumps(items).encode()
    assert body.too_many(text, len(items) - 1)[0]


def test_a_body_of_too_many_values_is_refused_before_it_is_decoded(monkeypatch):
    """The issue's 3.9 MB body of 1.3 M calls cost the server 0.2 CPU-s to refuse, most of it
    spent decoding it."""
    decoded = []
    monkeypatch.setattr(body.json, "loads", lambda *a, **k: decoded.append(1))
    for flood in (
        b'{"source": "x", "calls": [' + b'"",' * 1_300_000 + b'""]}',
        b'{"source": "x", "calls": [' + b"1," * 1_300_000 + b"1]}",
        b'{"source": "x", "calls": [' + b'"\\\\",' * 1_300_000 + b'""]}',
    ):
        with pytest.raises(body.BodyError, match="more than 100 JSON values"):
            body.loads(flood, max_values=100)
    assert decoded == []
