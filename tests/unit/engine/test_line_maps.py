"""Source line maps, through the real engine: each converted line names the user's line it came
from (convert.line_map), and each graph op the user's line that created it (graphs.graph_ops),
for a loop, an if, a nested function and a lambda."""

from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")

from playground.contract.job import Job
from playground.engine.pipeline import analyze

SOURCE = """import tensorflow as tf


def helper(v):
    return v * 3.0


@tf.function
def f(x, n):
    total = tf.constant(0.0)
    for i in tf.range(n):
        total += tf.reduce_sum(x * tf.cast(i, tf.float32))
    if total > 0:
        total = total * 2
    else:
        total = -total

    def nested(v):
        return v - 1.0
    square = lambda v: v * v
    return helper(nested(square(total)))
"""
LOOP, LOOP_BODY, IF, THEN, ELSE, NESTED_RETURN, LAMBDA, RETURN, HELPER = 11, 12, 13, 14, 16, 19, 20, 21, 5


@pytest.fixture(scope="module")
def function():
    report = analyze(Job(SOURCE, "f", ("float32[3], int32[]",), filename="user.py"))
    assert report.status == "ok", report.error
    return report.functions[0]


def converted_lines_for(function, source_line):
    code = function.converted_code.splitlines()
    return [code[c.line - 1] for c in function.converted_code_lines if c.source_line == source_line]


def test_each_converted_line_names_its_source_line(function):
    assert any("ag__.for_stmt" in line for line in converted_lines_for(function, LOOP))
    assert any("reduce_sum" in line for line in converted_lines_for(function, LOOP_BODY))
    assert any("ag__.if_stmt" in line for line in converted_lines_for(function, IF))
    assert any("* 2" in line for line in converted_lines_for(function, THEN))
    assert any("-ag__.ld(total)" in line for line in converted_lines_for(function, ELSE))
    assert any("- 1.0" in line for line in converted_lines_for(function, NESTED_RETURN))
    assert any("lambda v" in line for line in converted_lines_for(function, LAMBDA))
    lines = [c.line for c in function.converted_code_lines]
    assert lines == sorted(set(lines))  # one origin per converted line
    assert all(
        1 <= c.line <= len(function.converted_code.splitlines()) for c in function.converted_code_lines
    )


def test_graph_ops_are_counted_per_source_line(function):
    graph = function.graph
    by_line = {int(k): v for k, v in graph.ops_by_line.items()}
    assert by_line[LOOP] > by_line[LOOP_BODY] > 0  # the loop's machinery, then its body
    assert by_line[IF] > 0 and by_line[THEN] > 0 and by_line[ELSE] > 0
    assert by_line[NESTED_RETURN] > 0 and by_line[LAMBDA] > 0
    assert by_line[HELPER] > 0  # a plain helper called from the body
    assert sum(by_line.values()) <= graph.op_count == len(graph.ops)
    body_ops = [op for op in graph.ops if op.function.startswith("while_body")]
    assert body_ops and {op.line for op in body_ops} <= {LOOP, LOOP_BODY}
    assert [op.type for op in graph.ops if op.line == LAMBDA] == ["Mul"]


def test_argument_placeholders_belong_to_no_line(function):
    placeholders = [op for op in function.graph.ops if op.type == "Placeholder" and not op.function]
    assert [op.name for op in placeholders] == ["x", "n"]
    assert all(op.line is None for op in placeholders)
