"""Each pitfall detector fires on the broken pattern, at the user's line, and stays quiet on the
idiomatic version: static analysis confirmed by what the real run observed."""

from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")

from playground.contract.job import Job
from playground.engine.pipeline import analyze
from playground.engine.pitfalls import suggest_signature

HEAD = "import tensorflow as tf\nimport numpy as np\n\n"


def warnings(body, function="f", calls=("float32[3]",), **options):
    report = analyze(Job(HEAD + body, function, tuple(calls), **options))
    return {(w.code, w.line) for w in report.warnings}, report


CASES = [
    (
        "print-at-trace",
        "@tf.function\ndef f(x):\n    print('x', x)\n    return x\n",
        6,
        "@tf.function\ndef f(x):\n    tf.print('x', x)\n    return x\n",
    ),
    (
        "python-side-effect",
        "seen = []\n\n@tf.function\ndef f(x):\n    seen.append(x)\n    return x\n",
        8,
        "@tf.function\ndef f(x):\n    parts = []\n    parts.append(x)\n    return tf.stack(parts)\n",
    ),
    (
        "variable-in-function",
        "@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return x * v\n",
        6,
        "class M(tf.Module):\n    def __init__(self):\n        self.v = None\n\n"
        "    @tf.function\n    def __call__(self, x):\n        if self.v is None:\n"
        "            self.v = tf.Variable(1.0)\n        return x * self.v\n\nf = M()\n",
    ),
    (
        "captured-global",
        "scale = 2.0\n\n@tf.function\ndef f(x):\n    return x * scale\n\nscale = 3.0\n",
        8,
        "SCALE = 2.0\n\n@tf.function\ndef f(x):\n    return x * SCALE\n",
    ),
    (
        "numpy-in-graph",
        "@tf.function\ndef f(x):\n    return np.sum(x)\n",
        6,
        "@tf.function\ndef f(x):\n    return tf.reduce_sum(x) * np.float32(2.0)\n",
    ),
    (
        "python-control-flow-on-tensor-shape",
        "@tf.function\ndef f(x):\n    if x.shape[0] > 2:\n        return x\n    return -x\n",
        6,
        "@tf.function\ndef f(x):\n    if tf.shape(x)[0] > 2:\n        return x\n    return -x\n",
    ),
]


@pytest.mark.parametrize("code, broken, line, fixed", CASES, ids=[c[0] for c in CASES])
def test_detector_fires_on_broken_and_not_on_fixed(code, broken, line, fixed):
    found, _ = warnings(broken)
    assert (code, line) in found
    clean, report = warnings(fixed)
    assert clean == set(), report.warnings


def test_print_warning_counts_traces_against_calls():
    _, report = warnings(
        "@tf.function\ndef f(x):\n    print('hi')\n    return x\n", calls=("float32[3]",) * 4
    )
    (w,) = report.warnings
    assert "printed during 1 of 4 call(s) and the function traced 1 time(s)" in w.message
    assert w.fix.startswith("Use tf.print")


def test_python_scalar_arg_and_excessive_retracing_from_the_run():
    body = "@tf.function\ndef f(x, n):\n    return x * n\n"
    found, report = warnings(body, calls=("float32[3], 1", "float32[3], 2", "float32[3], 3", "float32[3], 4"))
    codes = {c for c, _ in found}
    assert codes == {"python-scalar-arg", "excessive-retracing"}
    scalar = next(w for w in report.warnings if w.code == "python-scalar-arg")
    assert "Python value of n changed between calls (n 1 -> 2, 2 -> 3, 3 -> 4)" in scalar.message
    # The same function with a constant n traces once: no warning at all.
    found, _ = warnings(body, calls=("float32[3], 1",) * 4)
    assert found == set()


TRAIN_STEP = "@tf.function\ndef train_step(x, lr, step):\n    return x * lr + tf.cast(step, tf.float32)\n"


def test_every_python_value_that_changed_is_named_with_its_exact_edit():
    calls = ("float32[3], 0.01, 1", "float32[3], 0.01, 2", "float32[3], 0.005, 3", "float32[3], 0.005, 4")
    _, report = warnings(TRAIN_STEP, "train_step", calls)
    scalar = next(w for w in report.warnings if w.code == "python-scalar-arg")
    assert "Python value of step, lr changed" in scalar.message and "lr 0.01 -> 0.005" in scalar.message
    # step, an int beside a float32 tensor, as the float32 it became where they met
    assert "tf.constant(1, tf.float32) for step, tf.constant(0.01) for lr" in scalar.fix
    retracing = next(w for w in report.warnings if w.code == "excessive-retracing")
    # The cause is values, not shapes: no input_signature with None, no reduce_retracing.
    assert retracing.fix == "For the Python values: pass them as tensors (see python-scalar-arg)."
    # The edit it names, made in the plan, leaves one trace (test_tracing checks plain TF agrees).
    tensors = [
        f"float32[3], tf.constant({lr}), tf.constant({step})"
        for lr, step in ((0.01, 1), (0.01, 2), (0.005, 3))
    ]
    found, fixed = warnings(TRAIN_STEP, "train_step", tensors)
    assert fixed.functions[0].tracing_count == 1 and found == set()


def test_excessive_retracing_suggests_the_covering_signature():
    _, report = warnings(
        "@tf.function\ndef f(x):\n    return x + 1\n",
        calls=("float32[1,3]", "float32[2,3]", "float32[3,3]", "float32[4,3]"),
    )
    (w,) = report.warnings
    assert w.code == "excessive-retracing"
    assert "input_signature=[tf.TensorSpec([None, 3], tf.float32)]" in w.fix
    assert "reduce_retracing=True" in w.fix


def test_suggest_signature_gives_up_on_mixed_dtypes():
    assert suggest_signature(["float32[2]", "int32[2]"]) is None
    assert (
        suggest_signature(["float32[2], int32[]", "float32[5], int32[]"])
        == "[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)]"
    )


def test_idiomatic_function_has_no_warnings():
    body = (
        "@tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])\n"
        "def f(x):\n    total = tf.constant(0.0)\n    for row in x:\n"
        "        total += tf.reduce_sum(row)\n    tf.print('total', total)\n"
        "    return total / tf.cast(tf.shape(x)[0], tf.float32)\n"
    )
    found, report = warnings(body, calls=("float32[2,4]", "float32[5,4]"))
    assert report.status == "ok" and found == set()


UNROLLED = """import tensorflow as tf

@tf.function
def smooth(x):
    for _ in range(12):
        x = x * 0.5 + tf.reduce_mean(x)
    for i in tf.range(12):
        x = x + 1.0
    for w in [1.0, 2.0]:
        x = x * w
    return x
"""


PLAIN_COUNT = """
import sys
import tensorflow as tf
sys.path.insert(0, sys.argv[1])
import smooth
graph = smooth.smooth.get_concrete_function(tf.TensorSpec([4], tf.float32)).graph
lines = [[f.lineno for f in op.traceback if f.filename.endswith("smooth.py")][-1:] for op in graph.get_operations()]
print(sum(1 for line in lines if line == [6]))
"""


def test_a_python_loop_that_unrolls_is_named_with_the_ops_plain_tf_gave_its_body(tmp_path):
    report = analyze(Job(source=UNROLLED, function="smooth", calls=("float32[4]",)))
    unrolled = [w for w in report.warnings if w.code == "python-loop-unrolled"]
    assert [w.line for w in unrolled] == [5]  # not tf.range's loop, nor two passes of a list
    # Plain TF in a process of its own (AutoGraph caches a conversion by its code, with the
    # first file's name): the ops the trace made from the loop's body, line 6.
    import subprocess
    import sys

    (tmp_path / "smooth.py").write_text(UNROLLED)
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_COUNT, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"},
    )
    body = int(done.stdout.strip().splitlines()[-1])
    assert body >= 12 * 3  # multiply, mean, add: each pass made them again
    assert f"runs 12 times while smooth traces: it unrolled into {body} ops" in unrolled[0].message


@pytest.mark.parametrize(
    ("loop", "times"),
    [("range(100)", 100), ("range(2, 10)", 8), ("range(10, 0, -2)", 5), ("[1, 2, 3]", 3), ("range(n)", None),
     ("tf.range(10)", None), ("range(1, 2, 0)", None)],
)  # fmt: skip
def test_the_iterations_the_code_states(loop, times):
    import ast

    from playground.engine.pitfalls.rules import python_iterations

    assert python_iterations(ast.parse(f"for i in {loop}:\n    pass\n").body[0]) == times
