"""Tracing through the real engine: counts, retrace reasons, input_signature, reduce_retracing,
script mode, errors on the user's lines. Asserts what TF 2.21 does, not what the article says."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

import tf_facts  # noqa: E402

from playground.contract.job import Job  # noqa: E402
from playground.engine.pipeline import analyze  # noqa: E402

IDENTITY = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n"
SCALE = "import tensorflow as tf\n\ndef scale(x, n):\n    return x * n\n"


def run(source=IDENTITY, function="f", calls=(), **options):
    return analyze(Job(source=source, function=function, calls=tuple(calls), **options))


def reasons(report):
    return [c.reason for c in report.functions[0].calls]


def test_shape_dtype_and_python_value_reasons():
    report = run(
        SCALE, "scale", ["float32[3], 1", "float32[3], 1", "float32[2], 1", "int32[2], 1", "int32[2], 2"]
    )
    assert report.status == "ok"
    assert reasons(report) == [
        "first call",
        None,
        "x: shape (3,) -> (2,)",
        "x: dtype float32 -> int32",
        "n: Python value 1 -> 2",
    ]
    assert report.functions[0].tracing_count == 4
    assert [c.tracing_count for c in report.functions[0].calls] == [1, 1, 2, 3, 4]


def test_reason_diffs_against_the_closest_trace():
    # The third call differs from trace 1 in x only, and from trace 2 in both x and n.
    report = run(SCALE, "scale", ["float32[3], 1", "float32[2], 2", "float32[4], 1"])
    assert reasons(report)[2] == "x: shape (3,) -> (4,)"


def test_python_value_to_tensor_kind_change():
    report = run(SCALE, "scale", ["float32[3], 1", "float32[3], float32[]"])
    assert reasons(report)[1] == "n: Python int 1 -> tensor float32 ()"


def test_input_signature_one_trace_for_any_batch():
    report = run(calls=["float32[1,3]", "float32[7,3]", "float32[64,3]"], signature="float32[None,3]")
    f = report.functions[0]
    assert f.tracing_count == 1
    assert [c.retraced for c in f.calls] == [True, False, False]
    assert "shape=(None, 3)" in f.concrete_signatures[0]


def test_input_signature_mismatch_is_a_call_error_and_later_calls_run():
    report = run(calls=["float32[2]", "int32[2]", "float32[5]"], signature="float32[None]")
    calls = report.functions[0].calls
    assert calls[1].error.type == tf_facts.BINDING_ERROR
    assert tf_facts.BINDING_MESSAGE in calls[1].error.message
    assert calls[2].error is None and calls[2].output.startswith("float32[5]")
    assert report.status == "error"


def test_default_shapes_trace_four_times_reduce_retracing_twice():
    calls = ["float32[1]", "float32[2]", "float32[3]", "float32[4]"]
    assert run(calls=calls).functions[0].tracing_count == 4
    relaxed = run(calls=calls, reduce_retracing=True)
    assert relaxed.functions[0].tracing_count == 2
    assert reasons(relaxed)[1] == "x: shape (1,) -> (2,) (reduce_retracing traced it as (None,))"


def test_reduce_retracing_over_a_new_rank_traces_a_third_graph():
    # The article says [3], [5], [7,3] give 2 traces; TF 2.21 gives 3.
    report = run(calls=["float32[3]", "float32[5]", "float32[7,3]"], reduce_retracing=True)
    f = report.functions[0]
    assert f.tracing_count == 3
    assert "traced it as <unknown rank>" in f.calls[2].reason
    assert "shape=<unknown>" in f.concrete_signatures[-1]


def test_script_mode_reports_every_function_in_creation_order():
    source = """import tensorflow as tf

@tf.function
def first(x):
    return x + 1

@tf.function
def second(x):
    print("tracing second")
    return x * 2

second(tf.constant(1.0))
first(tf.constant(1.0))
second(tf.constant(2.0))
second(tf.constant([1.0, 2.0]))
print("done")
"""
    report = run(source, function=None)
    assert [f.name for f in report.functions] == ["first", "second"]  # creation order
    second = report.functions[1]
    assert second.tracing_count == 2
    assert [c.retraced for c in second.calls] == [True, False, True]
    assert second.calls[0].stdout == "tracing second\n"
    assert second.calls[1].stdout == ""
    assert report.stdout.endswith("done\n")


def test_script_mode_counts_literal_and_tensor_calls_like_tf():
    source = (
        "import tensorflow as tf\n\n@tf.function\ndef f(a):\n    return a\n\n"
        "f(1)\nf(2.0)\nf(tf.constant(1))\nf(tf.constant(2))\nf(tf.constant(1.0))\n"
    )
    assert run(source, function=None).functions[0].tracing_count == 4


def test_user_tracing_count_is_not_distorted_by_inspection():
    report = run(calls=["float32[3]"], jit_compile=True, timing=True, timing_budget_s=0.2)
    f = report.functions[0]
    assert f.tracing_count == 1  # HLO and timing used their own tf.function instances
    assert f.hlo and "HloModule" in f.hlo
    assert f.timing is not None and f.timing.xla is not None


def test_redecorated_user_function_is_unwrapped_and_keeps_its_signature():
    source = (
        "import tensorflow as tf\n\n"
        "@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])\n"
        "def f(x):\n    return x\n"
    )
    report = run(source, calls=["float32[2]", "float32[9]"])
    assert report.functions[0].tracing_count == 1


def test_method_entry_on_a_module_instance():
    source = (
        "import tensorflow as tf\n\nclass Counter(tf.Module):\n"
        "    def __init__(self):\n        self.counter = tf.Variable(0.0)\n\n"
        "    @tf.function\n    def increment(self):\n"
        "        self.counter.assign_add(1.0)\n        return self.counter.read_value()\n"
    )
    report = run(source, "Counter().increment", ["", "", ""])
    outputs = [c.output for c in report.functions[0].calls]
    assert outputs == ["float32[] 1.0", "float32[] 2.0", "float32[] 3.0"]
    assert "ag__" in report.functions[0].converted_code


def test_errors_point_at_the_users_line():
    source = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    y = x * 2\n    return y.numpy()\n"
    report = run(source, calls=["float32[3]"])
    error = report.functions[0].calls[0].error
    assert error.type == "AttributeError" and error.line == 6
    assert f"{tf_facts.GRAPH_TENSOR} object has no attribute 'numpy'" in error.message


@pytest.mark.parametrize(
    "source, function, calls, kind, text",
    [
        ("def f(:\n", "f", [], "SyntaxError", "invalid syntax"),
        ("x = 1\x00\n", "f", [], "SourceError", "null byte on line 1"),
        (
            IDENTITY,
            "g",
            [],
            "EntryError",
            "entry 'g' is not defined in the source; functions in the source: f",
        ),
        ("x = 3\n", "x", [], "EntryError", "entry 'x' is a int, not a callable"),
        (IDENTITY, "f", ["float32[2], 3"], None, "does not fit f(x)"),
        (IDENTITY, "f", ["flaot32[2]"], "SpecError", "did you mean float32"),
        ("raise RuntimeError('boom')\n", "f", [], "RuntimeError", "boom"),
    ],
)
def test_bad_input_gets_a_clear_error(source, function, calls, kind, text):
    report = run(source, function, calls)
    assert report.status == "error"
    error = report.error or report.functions[0].calls[0].error
    if kind:
        assert error.type == kind
    assert text in error.message


def test_script_that_raises_reports_the_line_and_keeps_earlier_calls():
    source = (
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x + 1\n\n"
        "f(tf.constant(1.0))\nraise ValueError('later')\n"
    )
    report = run(source, function=None)
    assert report.error.type == "ValueError" and report.error.line == 8
    assert report.functions[0].tracing_count == 1


def test_lambda_entry_is_explained():
    source = "import tensorflow as tf\n\nsquare = lambda x: x * x\n"
    report = run(source, "square", ["float32[2]"])
    assert report.status == "ok"
    assert "This is a lambda" in report.functions[0].conversion_note


def test_tf_print_output_is_captured_per_call():
    source = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    tf.print('value', x)\n    return x\n"
    report = run(source, calls=["int32[]", "int32[]"])
    assert all(c.stdout.startswith("value ") for c in report.functions[0].calls)


def test_size_sweep_times_each_size_and_shows_retraces():
    sweep_job = dict(timing=True, timing_budget_s=0.3, sweep="x[0]=4,16,64")
    plain = run(SCALE, "scale", ["float32[2], 2.0"], **sweep_job).functions[0].timing
    assert [p.size for p in plain.sweep] == [4, 16, 64] and plain.sweep_label == "x dim 0"
    assert [p.graph_traces for p in plain.sweep] == [1, 2, 3]  # every size is a new shape
    assert all(p.eager_s > 0 and p.graph_s > 0 and p.xla_s > 0 for p in plain.sweep)
    fixed = (
        run(SCALE, "scale", ["float32[2], float32[]"], signature="float32[None], float32[]", **sweep_job)
        .functions[0]
        .timing
    )
    assert [p.graph_traces for p in fixed.sweep] == [1, 1, 1]
    assert fixed.environment["tensorflow_version"] == tf.__version__  # the TF that ran it
    bad = run(SCALE, "scale", ["float32[2], 2.0"], **{**sweep_job, "sweep": "n[0]=4"})
    assert "size sweep n[0]=4: argument 2.0 has no dimension 0" in bad.functions[0].conversion_note


def test_fallbacks_name_the_private_apis_this_version_lacks():
    report = run(calls=["float32[2]", "float32[3]"])
    assert {f.feature for f in report.fallbacks} == tf_facts.FALLBACKS
    assert all(f.available and f.detail for f in report.fallbacks)
    assert reasons(report) == ["first call", "x: shape (2,) -> (3,)"]  # the fallback worked
    assert "shape=(3,)" in report.functions[0].concrete_signatures[-1]


LEARNING_RATE = "import tensorflow as tf\n\n@tf.function\ndef step(x, lr):\n    return x * lr\n"


def plain_tf_traces(make_lr) -> int:
    """The same three calls in plain TensorFlow: the reference the engine must match."""
    namespace: dict = {}
    exec(LEARNING_RATE, namespace)  # noqa: S102 - the test's own source
    x = tf.ones([3])
    for value in (0.01, 0.005, 0.001):
        namespace["step"](x, make_lr(value))
    return namespace["step"].experimental_get_tracing_count()


@pytest.mark.parametrize(
    ("written", "make_lr"),
    [
        ("{}", lambda v: v),
        ("tf.constant({})", tf.constant),
        ("tf.Variable({})", tf.Variable),
    ],
)
def test_a_learning_rate_passed_as_the_plan_writes_it_traces_as_plain_tf_does(written, make_lr):
    calls = [f"tf.constant([1.0, 1.0]), {written.format(v)}" for v in (0.01, 0.005, 0.001)]
    report = run(LEARNING_RATE, "step", calls)
    assert report.status == "ok", report.message
    assert report.functions[0].tracing_count == plain_tf_traces(make_lr)
    assert report.functions[0].calls[1].output == "float32[2] [0.005 0.005]"  # the values given


def test_a_tensor_of_given_values_arrives_with_those_values():
    report = run(IDENTITY, "f", ["tf.constant([[1, 2], [3, 4]], tf.int64)"])
    assert report.functions[0].calls[0].output == "int64[2,2] [[1 2] [3 4]]"


LAZY_VARIABLE = (
    "import tensorflow as tf\n\nweights = []\n\n@tf.function\ndef f(x):\n"
    "    if not weights:\n        weights.append(tf.Variable(2.0))  # as a Keras layer builds\n"
    "    return x * weights[0]\n"
)


def test_a_first_call_that_creates_variables_traces_twice_and_the_table_says_why():
    from playground.reports.tables import timeline_rows

    namespace: dict = {}
    exec(LAZY_VARIABLE, namespace)  # noqa: S102 - the test's own source: plain TF's count
    namespace["f"](tf.ones([3]))
    plain = namespace["f"].experimental_get_tracing_count()
    report = run(LAZY_VARIABLE, "f", ["float32[3]", "float32[3]"])
    (function,) = report.functions
    assert [c.tracing_count for c in function.calls] == [plain, plain] and plain == 2
    first, second = timeline_rows(function)
    assert first["traced"] == "traced 2 times" and "the first trace created variables" in first["reason"]
    assert second["traced"] == "reused graph"
