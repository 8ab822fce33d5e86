"""engine/values.py against plain TensorFlow: each form of the call plan makes the tensor that
TensorFlow's own tf.ones/zeros/fill/range/eye make, bounded forms stay within their bounds, an
exported notebook's expression (reports/notebook.py, with seeded.make_tensor as it embeds it)
makes the same values, and arguments made by the user's code are found, counted and reported."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from playground.contract import specs  # noqa: E402
from playground.contract.job import Job  # noqa: E402
from playground.engine import values  # noqa: E402
from playground.engine.pipeline import analyze  # noqa: E402
from playground.reports import notebook  # noqa: E402

SEED = 1003  # call 1, argument 3: what the engine would use


def same(made, expected) -> None:
    assert made.dtype == expected.dtype and tuple(made.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(made.numpy(), expected.numpy())


@pytest.mark.parametrize(
    "text",
    [
        "tf.ones([3])",
        "tf.ones((2, 3), tf.int32)",
        "tf.ones([2], tf.bool)",
        "tf.zeros([2, 2], dtype='float64')",
        "tf.zeros([3], tf.string)",
        "tf.fill([2, 3], 1.5)",
        "tf.fill([2], 7)",
        "tf.fill([2], 1099511627776)",
        "tf.fill([2], True)",
        "tf.fill([2], 'a')",
        "tf.range(5)",
        "tf.range(1, 6, 2)",
        "tf.range(5, 1, -2)",
        "tf.range(0, 1, 0.1)",
        "tf.range(0, 1, 0.1, dtype=tf.float16)",
        "tf.range(3, dtype=tf.float64)",
        "tf.eye(3)",
        "tf.eye(2, 4, dtype=tf.int32)",
        "tf.eye(num_rows=2, dtype=tf.bool)",
    ],
)
def test_a_fixed_form_makes_what_plain_tensorflow_makes(text: str) -> None:
    expected = eval(text, {"tf": tf})  # noqa: S307 - the test's own texts, in plain TensorFlow
    spec = specs.parse_value(text)
    same(values.make_value(spec, SEED), expected)
    same(values.make_value(specs.parse_value(str(spec)), SEED), expected)  # its canonical text too


NOTEBOOK_NAMESPACE = {"tf": tf, "np": np}
exec(notebook.MAKE_TENSOR, NOTEBOOK_NAMESPACE)  # noqa: S102 - the notebook's own cell, as it runs there


@pytest.mark.parametrize(
    "text",
    [
        "float32[2,3]",
        "int32[8]",
        "int32[64] in [0, 10)",
        "tf.ones([3])",
        "tf.fill([2], 7)",
        "tf.range(0, 1, 0.1)",
        "tf.eye(2, 3)",
        "tf.random.normal([3], seed=5)",
        "tf.random.uniform([4], 2, 3, dtype=tf.float64)",
    ],
)
def test_the_notebooks_expression_makes_the_engines_values(text: str) -> None:
    """What the exported notebook writes for an argument, run in plain Python beside the engine."""
    spec = specs.parse_value(text)
    expression = notebook._arg(spec, SEED)
    same(values.make_value(spec, SEED), eval(expression, dict(NOTEBOOK_NAMESPACE)))  # noqa: S307 - ours


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("int32[1000] in [0, 10)", 0, 9),
        ("int32[1000] in [0, 2]", 0, 2),
        ("int64[1000] in [-3, 3)", -3, 2),
        ("uint8[1000] in [250, 255]", 250, 255),
        ("int8[1000] in [-128, 127]", -128, 127),
        ("tf.random.uniform([1000], 0, 3, dtype=tf.int32)", 0, 2),
    ],
)
def test_bounded_ints_lie_within_their_bounds_and_reach_both_ends(text: str, low: int, high: int) -> None:
    spec = specs.parse_value(text)
    made = values.make_value(spec, SEED)
    assert made.dtype == tf.dtypes.as_dtype(spec.dtype)
    assert (made.numpy().min(), made.numpy().max()) == (low, high)


@pytest.mark.parametrize(
    ("text", "dtype", "low", "high"),
    [
        ("float32[1000] in [0, 1)", "float32", 0, 1),
        ("float16[5000] in [0.5, 1)", "float16", 0.5, 1),  # many round up to 1 in float16: none stays
        ("bfloat16[5000] in [-1, 1)", "bfloat16", -1, 1),
        ("float64[100] in [-2.5, -2)", "float64", -2.5, -2),
        ("tf.random.uniform([1000])", "float32", 0, 1),
        ("tf.random.uniform([1000], 5, 6, dtype=tf.half)", "float16", 5, 6),
    ],
)
def test_bounded_floats_lie_in_the_half_open_range(text: str, dtype: str, low: float, high: float) -> None:
    made = values.make_value(specs.parse_value(text), SEED)
    assert made.dtype == tf.dtypes.as_dtype(dtype)
    bounds = tf.constant([low, high], tf.float64)
    assert bool(tf.reduce_all(tf.cast(made, tf.float64) >= bounds[0]))
    assert bool(tf.reduce_all(tf.cast(made, tf.float64) < bounds[1]))


def test_the_default_ints_are_the_old_ones_and_bounds_change_only_the_range() -> None:
    """int32[8] kept its values ([-5, 10)): recorded reports and notebooks stay true."""
    plain = values.make_value(specs.parse_value("int32[8]"), SEED)
    same(plain, values.make_value(specs.parse_value("int32[8] in [-5, 10)"), SEED))
    assert plain.numpy().min() < 0


def test_a_seed_overrides_the_calls_and_the_calls_seed_is_kept_otherwise() -> None:
    seeded = specs.parse_value("tf.random.normal([4], seed=11)")
    same(values.make_value(seeded, 0), values.make_value(seeded, 1000))
    plain = specs.parse_value("tf.random.normal([4])")
    same(values.make_value(plain, 11), values.make_value(seeded, 0))
    assert not np.array_equal(values.make_value(plain, 0).numpy(), values.make_value(plain, 1000).numpy())


def test_a_normal_forms_mean_and_stddev_are_used() -> None:
    made = values.make_value(specs.parse_value("tf.random.normal([20000], mean=5, stddev=0.5)"), SEED)
    assert abs(float(tf.reduce_mean(made)) - 5) < 0.05 and abs(float(tf.math.reduce_std(made)) - 0.5) < 0.05


CODE = """import numpy as np
import tensorflow as tf

NOT_A_FUNCTION = 3

def make_batch(n, features=4):
    return tf.ones([n, features]), tf.range(n) % 3

def make_x(n):
    return tf.zeros([n, 4])

def broken(n):
    return [1, 2][n]

def huge(n):
    return np.zeros([n, n], np.float32), 1

def single(n):
    return tf.ones([n])

@tf.function
def f(x, y=None):
    return tf.reduce_sum(x)
"""


def calls_of(*calls: str):
    report = analyze(Job(source=CODE, function="f", calls=calls))
    return report.functions[0].calls


def test_arguments_the_code_makes_are_passed_and_spread() -> None:
    spread, one, keyword, again = calls_of(
        "*make_batch(2)", "make_x(3)", "make_x(1), y=make_batch(1, features=2)", "*make_batch(2)"
    )
    assert [c.error for c in (spread, one, keyword, again)] == [None] * 4
    assert (spread.output, one.output) == ("float32[] 8.0", "float32[] 0.0")
    assert (spread.args, keyword.args) == ("*make_batch(2)", "make_x(1), y=make_batch(1, features=2)")
    assert not again.retraced  # the same shapes again: the made tensors trace like any others


def test_a_maker_the_code_lacks_is_the_calls_refusal() -> None:
    missing, not_function, fine = calls_of("make_y(3)", "*NOT_A_FUNCTION(1)", "make_x(1)")
    assert missing.error.message == "make_y(3) calls make_y, but your code defines no function make_y"
    assert "NOT_A_FUNCTION in your code is int, not a function" in not_function.error.message
    assert fine.error is None and fine.tracing_count == 1  # the refused calls never reached TF


def test_a_maker_that_raises_is_reported_at_the_users_line() -> None:
    (raised,) = calls_of("broken(5)")
    assert raised.error.type == "IndexError"
    assert raised.error.line == CODE.splitlines().index("    return [1, 2][n]") + 1


def test_what_a_maker_returns_counts_toward_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYGROUND_MAX_TENSOR_ELEMENTS", "100")  # settings() reads it each time
    over, under = calls_of("*huge(11)", "*huge(10)")
    assert "what *huge(11) returned has 121 elements, over the cap of 100" in over.error.message
    assert under.error is None


def test_a_spread_needs_a_tuple_that_binds() -> None:
    not_tuple, too_many = calls_of("*single(2)", "*make_batch(2), y=1")
    assert "*single(2) passes the items of a tuple or list; single returned" in not_tuple.error.message
    assert "*make_batch(2) returned 2 item(s), which do not fit f(x, y)" in too_many.error.message
    assert "multiple values for argument 'y'" in too_many.error.message
