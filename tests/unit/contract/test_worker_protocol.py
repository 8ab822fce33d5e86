"""The host's decoder for what a worker says (contract/protocol.py, contract/decode.py): every
line is hostile, so each check here is an attack a job can make by writing to its own pipe."""

from __future__ import annotations

import json
import time
import tracemalloc
from typing import Any

import pytest

from playground.contract import protocol
from playground.contract.decode import Bounds, DecodeError, decode
from playground.contract.job import Report, to_dict

OK_REPORT = Report(
    tensorflow_version="2.21.0",
    device="CPU",
    status="ok",
    error=None,
    stdout="hi\n",
    warnings=[],
    functions=[],
)


def report_line(**changes) -> bytes:
    return json.dumps({"event": "report", "report": {**to_dict(OK_REPORT), **changes}}).encode()


def test_a_real_report_round_trips():
    message = protocol.parse(report_line())
    assert isinstance(message, protocol.ReportMessage)
    assert message.report == OK_REPORT


def test_stray_bytes_and_unknown_or_host_kinds_are_no_message():
    for line in (
        b"",
        b"hello",
        b"[1, 2]",
        b'{"no": "event"}',
        b'{"event": "demoted"}',
        b'{"event": "queued", "position": 0}',
        b'{"event": "started"}',
    ):
        assert protocol.parse(line) is None, line


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"functions": "everything"}, "functions"),
        ({"status": "fine"}, "status"),
        ({"duration_s": "soon"}, "duration_s"),
        ({"warnings": [{"code": 1, "line": None, "message": "m"}]}, "warnings[0].code"),
        ({"functions": [{"name": "f"}]}, "functions[0].tracing_count"),
        ({"device": "x" * 20_000}, "device"),
        ({"environment": json.loads('{"a": ' * 12 + "1" + "}" * 12)}, "environment"),
    ],
)
def test_a_report_that_does_not_fit_its_type_is_malformed_and_names_the_field(changes, field):
    with pytest.raises(protocol.MalformedMessage) as refused:
        protocol.parse(report_line(**changes))
    assert field in str(refused.value)


def test_nan_and_infinity_become_none_where_none_fits_and_are_malformed_elsewhere():
    verified = {
        "signatures": [{"key": "k", "inputs": {}, "outputs": {}, "max_abs_diff": 1.0}],
        "verified": True,
        "path": "",
    }
    line = report_line(export=verified).replace(b'"max_abs_diff": 1.0', b'"max_abs_diff": NaN')
    assert protocol.parse(line).report.export.signatures[0].max_abs_diff is None
    for constant in (b"NaN", b"Infinity", b"1e999"):
        line = report_line().replace(b'"duration_s": 0.0', b'"duration_s": ' + constant)
        with pytest.raises(protocol.MalformedMessage, match="finite"):
            protocol.parse(line)


def test_deep_nesting_is_refused_without_recursing():
    line = b'{"event": "report", "report": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    with pytest.raises(protocol.MalformedMessage):
        protocol.parse(line)


def test_ten_million_empty_objects_are_counted_before_any_is_built():
    line = b'{"event": "report", "report": {"stdout": "", "x": [' + b"{}," * 5_000_000 + b"{}]}}"
    tracemalloc.start()
    try:
        with pytest.raises(protocol.MalformedMessage, match="values in one message"):
            protocol.parse(line)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(line)  # copies of the bytes, never ten million objects


def test_commas_inside_strings_do_not_count_as_values():
    printed = "," * 1_000_000 + '"\\,' * 1000  # an honest job that prints commas
    message = protocol.parse(report_line(stdout=printed))
    assert isinstance(message, protocol.ReportMessage) and message.report.stdout == printed


def test_an_event_is_held_to_its_own_size():
    big = json.dumps(
        {"event": "call_started", "function": "f", "index": 0, "args": "x" * (protocol.EVENT_LINE_BYTES + 1)}
    ).encode()
    with pytest.raises(protocol.MalformedMessage):
        protocol.parse(big)
    with pytest.raises(protocol.MalformedMessage):
        protocol.parse(
            b'{"event": "call_started", "function": "f", "index": 0, "args": "' + b"x" * 5000 + b'"}'
        )


def test_progress_is_rebuilt_from_its_fields_only():
    line = (
        b'{"event": "call_finished", "function": "f", "index": 2, "retraced": true, '
        b'"reason": "x: shape (3,) -> (2,)", "tracing_count": 2, "error": null, '
        b'"event2": "demoted", "extra": "dropped"}'
    )
    message = protocol.parse(line)
    assert protocol.as_event(message) == {
        "event": "call_finished",
        "function": "f",
        "index": 2,
        "retraced": True,
        "reason": "x: shape (3,) -> (2,)",
        "tracing_count": 2,
        "error": None,
    }


def test_skipped_kinds_are_not_parsed():
    assert protocol.parse(b'{"event": "call_started", "function": 1}', skip=protocol.PROGRESS) is None
    with pytest.raises(protocol.MalformedMessage):
        protocol.parse(b'{"event": "call_started", "function": 1}')


def test_line_reader_is_linear_in_the_number_of_lines():
    reader = protocol.LineReader(line_budget=1 << 30)
    started = time.process_time()
    kept = []
    for _ in range(8):  # as a 1 MiB pipe delivers it: 512 K newlines and 128 K stray lines
        kept += reader.feed(b"\n" * (1 << 19) + b"{}\n" * (1 << 17) + b'{"event": "x"}\n')
    elapsed = time.process_time() - started
    assert kept == [b'{"event": "x"}'] * 8
    assert elapsed < 1.0, elapsed  # quadratic splitting took 13 to 15 s for 512 K lines


def test_a_long_line_arriving_in_small_chunks_is_joined_once():
    reader = protocol.LineReader()
    started = time.process_time()
    line = b'{"event": "report", "report": "' + b"z" * (12 << 20) + b'"}'
    for offset in range(0, len(line), 64 << 10):  # a pipe's 64 KiB at a time
        assert reader.feed(line[offset : offset + (64 << 10)]) == []
    assert reader.feed(b"\n") == [line]
    assert time.process_time() - started < 1.0


def test_line_reader_joins_lines_across_chunks_and_keeps_only_messages():
    reader = protocol.LineReader()
    assert reader.feed(b'{"event": "a"') == []
    assert reader.feed(b'}\n\nstray\n{"event": "b"') == [b'{"event": "a"}']
    assert reader.feed(b"}\n") == [b'{"event": "b"}']


def test_line_reader_stops_at_the_budget_and_at_an_endless_line():
    with pytest.raises(protocol.StreamTooLarge):
        reader = protocol.LineReader(budget=1000)
        for _ in range(20):
            reader.feed(b"x\n" * 100)
    reader = protocol.LineReader(line_cap=100)
    with pytest.raises(protocol.StreamTooLarge):
        reader.feed(b"y" * 101)
    reader = protocol.LineReader(line_budget=1000)
    with pytest.raises(protocol.StreamTooLarge):
        reader.feed(b"\n" * 1001)


def test_decode_bounds_lists_dicts_and_free_values():
    bounds = Bounds(list_items=3, any_items=2, any_depth=2)
    assert decode(list[int], [1, 2, 3], bounds) == [1, 2, 3]
    for cls, value in (
        (list[int], [1, 2, 3, 4]),
        (list[int], [True]),
        (int, 2**60),
        (dict[str, int], {"a": "1"}),
        (float, "1"),
        (bool, 1),
    ):
        with pytest.raises(DecodeError):
            decode(cls, value, bounds)
    free = dict[str, Any]  # Report.environment, SandboxInfo.limits
    assert decode(free, {"a": {"b": 1}}, bounds) == {"a": {"b": 1}}
    with pytest.raises(DecodeError, match="deeper"):
        decode(free, {"a": {"b": {"c": {"d": 1}}}}, bounds)
    with pytest.raises(DecodeError, match="entries"):
        decode(free, {"a": {"b": 1, "c": 2, "d": 3}}, bounds)


def test_a_saved_report_a_visitor_opens_meets_the_workers_checks() -> None:
    """The page's report opener parses untrusted bytes as the host parses a worker's report:
    a real report decodes; nesting too deep for the parser, a flood of values and a field of
    the wrong type are each a MalformedMessage, never a crash or a huge structure."""
    import repo_paths

    saved = (repo_paths.DATA / "keras_fit.json").read_bytes()
    assert protocol.decode_report(saved) == Report.from_json(saved.decode())
    for hostile in (b"[" * 200_000 + b"]" * 200_000, b"[" + b"0," * (protocol.JSON_ITEMS + 1) + b"0]"):
        with pytest.raises(protocol.MalformedMessage):
            protocol.decode_report(hostile)
    with pytest.raises(protocol.MalformedMessage, match="tensorflow_version"):
        protocol.decode_report(b'{"tensorflow_version": 2}')


def test_a_number_too_large_for_a_float_is_malformed_not_an_overflow() -> None:
    """JSON's integers have no bound and float() of a huge one raises OverflowError, which no
    reader of a report catches: it is a value that does not fit, named by its field."""
    line = report_line().replace(b'"duration_s": 0.0', b'"duration_s": 1' + b"0" * 400)
    with pytest.raises(protocol.MalformedMessage, match="duration_s"):
        protocol.parse(line)
    with pytest.raises(DecodeError, match=r"^\[2\]: not a finite number"):
        decode(list[float], [1.0, 2.0, 10**400])


def test_lists_of_plain_values_are_checked_whole_and_still_name_the_item_that_does_not_fit() -> None:
    bounds = Bounds(text_chars=3)
    assert decode(list[float], [0.5, 1.5]) == [0.5, 1.5]
    assert decode(list[float], [1, 0.5]) == [1.0, 0.5] and type(decode(list[float], [1])[0]) is float
    assert decode(list[str], ["abc", ""], bounds) == ["abc", ""]
    assert decode(list[int], [2**53, -(2**53)]) == [2**53, -(2**53)]
    for cls, value, where in (
        (list[float], [0.5, float("nan")], r"^\[1\]: not a finite"),
        (list[float], [0.5, True], r"^\[1\]: not a number"),
        (list[str], ["a", "abcd"], r"^\[1\]: longer than 3"),
        (list[int], [1, 2**53 + 1], r"^\[1\]: not an integer"),
        (list[int], [1, True], r"^\[1\]: not an integer"),
    ):
        with pytest.raises(DecodeError, match=where):
            decode(cls, value, bounds)
    deep = {"functions": [{**to_dict(OK_REPORT), "name": "f", "tracing_count": "x"}]}
    with pytest.raises(DecodeError, match=r"^functions\[0\]\.tracing_count: not an integer"):
        decode(Report, {**to_dict(OK_REPORT), **deep}, protocol.REPORT_BOUNDS)
    with pytest.raises(DecodeError, match=r"^report\.functions\[0\]\.tracing_count: not an integer"):
        decode(Report, {**to_dict(OK_REPORT), **deep}, protocol.REPORT_BOUNDS, "report")
