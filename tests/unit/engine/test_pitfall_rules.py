"""Each pitfall rule on its own, without TensorFlow: a snippet and a recorded run in, the
rule's warning (or none) out. tests/unit/engine/test_pitfalls.py checks the same rules through real runs."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
import repo_paths

from playground.contract.job import CallRecord, ErrorInfo, FunctionReport, GraphInfo
from playground.engine.pitfalls import detect, rules
from playground.engine.pitfalls.syntax import find_def, module_scalars


def report(
    calls: int = 3,
    traces: int = 1,
    reasons: tuple = (),
    stdout: tuple = (),
    error: str = "",
    graph: GraphInfo | None = None,
) -> FunctionReport:
    records = [
        CallRecord(
            index=i,
            args=f"float32[{i + 1}]",
            retraced=i < traces,
            reason=reasons[i] if i < len(reasons) else None,
            stdout=stdout[i] if i < len(stdout) else "",
            output="ok",
            error=ErrorInfo("ValueError", error) if error and i == 0 else None,
            tracing_count=min(i + 1, traces),
        )
        for i in range(calls)
    ]
    return FunctionReport("f", traces, records, [], None, graph, None, None, line=2)


def seen(source: str, run: FunctionReport) -> rules.Seen:
    tree = ast.parse(source)
    return rules.Seen.of(run, find_def(tree, 2), module_scalars(tree))


def warnings_of(rule, source: str, run: FunctionReport) -> list:
    looked = seen(source, run)
    if rule in rules.OBSERVED:
        return list(rule(looked))
    body = looked.node.body if isinstance(looked.node.body, list) else [looked.node.body]
    found = [rule(looked, sub) for stmt in body for sub in ast.walk(stmt)]
    return [w for w in found if w is not None]


# Each rule: a snippet it must flag (line, code), and a near miss it must leave alone.
CASES = {
    rules.print_at_trace: (
        "@tf.function\ndef f(x):\n    print(x)\n    return x\n",
        (3, "print-at-trace"),
        "@tf.function\ndef f(x):\n    tf.print(x)\n    return x\n",
    ),
    rules.open_at_trace: (
        "@tf.function\ndef f(x):\n    open('w.txt').read()\n    return x\n",
        (3, "python-side-effect"),
        "@tf.function\ndef f(x):\n    tf.io.read_file('w.txt')\n    return x\n",
    ),
    rules.mutated_python_state: (
        "seen = []\n@tf.function\ndef f(x):\n    seen.append(x)\n    return x\n",
        (4, "python-side-effect"),
        "@tf.function\ndef f(x):\n    out = []\n    out.append(x)\n    return out\n",
    ),
    rules.variable_in_function: (
        "@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return x * v\n",
        (3, "variable-in-function"),
        "@tf.function\ndef f(self, x):\n    if self.v is None:\n        self.v = tf.Variable(1.0)\n    return x\n",
    ),
    rules.numpy_method: (
        "@tf.function\ndef f(x):\n    return x.numpy()\n",
        (3, "numpy-in-graph"),
        "@tf.function\ndef f(x):\n    return x.numpy(1)\n",
    ),
    rules.numpy_on_tensor: (
        "@tf.function\ndef f(x):\n    return np.sum(x)\n",
        (3, "numpy-in-graph"),
        "@tf.function\ndef f(x):\n    return x + np.float32(2)\n",
    ),
    rules.len_of_argument: (
        "@tf.function\ndef f(x):\n    return x * len(x)\n",
        (3, "python-control-flow-on-tensor-shape"),
        "@tf.function\ndef f(x):\n    return x * len([1, 2])\n",
    ),
    rules.assigned_python_state: (
        "cache = {}\n@tf.function\ndef f(x):\n    cache['last'] = x\n    return x\n",
        (4, "python-side-effect"),
        "@tf.function\ndef f(self, x):\n    last = x\n    return last\n",
    ),
    rules.if_on_static_shape: (
        "@tf.function\ndef f(x):\n    if x.shape[0] > 2:\n        return x\n    return -x\n",
        (3, "python-control-flow-on-tensor-shape"),
        "@tf.function\ndef f(x):\n    if tf.shape(x)[0] > 2:\n        return x\n    return -x\n",
    ),
    rules.captured_global: (
        "@tf.function\ndef f(x):\n    return x * scale\nscale = 2.0\nscale = 3.0\n",
        (3, "captured-global"),
        "@tf.function\ndef f(x):\n    return x * SCALE\nSCALE = 2.0\n",
    ),
    rules.python_loop_unrolled: (
        "@tf.function\ndef f(x):\n    for _ in range(10):\n        x = x * 2.0\n    return x\n",
        (3, "python-loop-unrolled"),
        "@tf.function\ndef f(x):\n    for _ in tf.range(10):\n        x = x * 2.0\n    return x\n",
    ),
}
# The last trace's graph: line 4 made 20 ops (a loop body's two ops, ten times over).
RUN = report(graph=GraphInfo(op_count=22, op_count_optimized=22, op_types={}, ops_by_line={"4": 20}))
OBSERVED = {
    rules.python_scalar_arg: (
        report(reasons=("", "n: Python value 1 -> 2", "n: Python value 2 -> 3"), traces=3),
        (2, "python-scalar-arg"),
        report(reasons=("", "x: shape (1,) -> (2,)"), traces=2),
    ),
    rules.excessive_retracing: (
        report(calls=5, traces=5),
        (2, "excessive-retracing"),
        report(calls=5, traces=2),
    ),
}
ROOT = repo_paths.ROOT
SOURCE = "@tf.function\ndef f(x, n=1):\n    return x\n"


def test_every_rule_has_its_case_here() -> None:
    assert set(rules.SYNTAX) == set(CASES)
    assert set(rules.OBSERVED) == set(OBSERVED)


@pytest.mark.parametrize("rule", list(CASES), ids=lambda r: r.__name__)
def test_a_syntax_rule_flags_its_pitfall_and_leaves_the_near_miss(rule) -> None:
    flagged, (line, code), near_miss = CASES[rule]
    assert [(w.line, w.code) for w in warnings_of(rule, flagged, RUN)] == [(line, code)]
    assert warnings_of(rule, near_miss, RUN) == []


@pytest.mark.parametrize("rule", list(OBSERVED), ids=lambda r: r.__name__)
def test_an_observed_rule_reads_the_run(rule) -> None:
    flagged, (line, code), quiet = OBSERVED[rule]
    assert [(w.line, w.code) for w in warnings_of(rule, SOURCE, flagged)] == [(line, code)]
    assert warnings_of(rule, SOURCE, quiet) == []


def test_print_and_numpy_are_fine_when_the_calls_ran_eagerly() -> None:
    eager = report(traces=0)  # run_functions_eagerly: calls, and no trace
    source = "@tf.function\ndef f(x):\n    print(x.numpy(), np.sum(x))\n    return x\n"
    assert detect(source, [eager], [_function_at(2)]) == []


def test_detect_reports_each_pitfall_once_per_line() -> None:
    source = "seen = []\n@tf.function\ndef f(x):\n    seen.append(x); seen.append(x)\n    return x\n"
    codes = [(w.line, w.code) for w in detect(source, [report()], [_function_at(2)])]
    assert codes == [(4, "python-side-effect")]


def test_the_rules_import_without_tensorflow() -> None:
    check = "import sys, playground.engine.pitfalls; assert 'tensorflow' not in sys.modules"
    subprocess.run([sys.executable, "-c", check], check=True, cwd=ROOT)


def _function_at(line: int):
    class Code:
        co_firstlineno = line

    class Function:
        __code__ = Code

    return Function


def test_print_at_trace_gives_no_counts_when_no_call_reached_the_body() -> None:
    """A call that could not bind, or raised before tracing: "printed during 0 of 1 call(s)"
    would say the print never ran because of graphs, which nothing here showed."""
    source = "@tf.function\ndef f(x, y):\n    print(x)\n    return x\n"
    refused = report(calls=1, traces=0, error="f() missing 1 required positional argument: 'y'")
    (warning,) = warnings_of(rules.print_at_trace, source, refused)
    assert warning.message == "print() in f runs only while tracing, and graph executions print nothing."
    (traced,) = warnings_of(rules.print_at_trace, source, report(calls=2, traces=1, stdout=("x",)))
    assert "it printed during 1 of 2 call(s) and the function traced 1 time(s)" in traced.message
