"""contract/plan_fit.py: whether a planned call binds to the function, checked against Python's
own binding (inspect.signature(f).bind) on real functions, and the call a function's parameters
suggest."""

from __future__ import annotations

import inspect
import itertools

import pytest

from playground.contract import plan_fit, source_info, specs

DEFINITIONS = [
    "def f(x): pass",
    "def f(x, n): pass",
    "def f(x, y, lr=0.01, step=0): pass",
    "def f(x, *args): pass",
    "def f(x, **kwargs): pass",
    "def f(a, /, b, *, k): pass",
    "def f(a, /, b=1, *, k=2, **kw): pass",
    "def f(*, k): pass",
    "def f(): pass",
]
CALLS = [
    "()",
    "float32[3]",
    "float32[3], 2",
    "float32[3], 2, 3, 4, 5",
    "x=float32[3]",
    "float32[3], x=1",
    "float32[3], n=2",
    "a=1",
    "1, b=2",
    "1, k=3",
    "1, 2, k=3",
    "1, k=3, q=4",
    "float32[3], float32[3], lr=0.5",
    "float32[3], y=float32[3], step=tf.constant(1)",
]


def python_binds(definition: str, call: specs.CallSpec) -> bool:
    namespace: dict = {}
    exec(definition, namespace)  # noqa: S102 - the test's own definitions
    try:
        inspect.signature(namespace["f"]).bind(*call.args, **dict(call.kwargs))
    except TypeError:
        return False
    return True


@pytest.mark.parametrize(("definition", "text"), list(itertools.product(DEFINITIONS, CALLS)))
def test_a_call_is_refused_exactly_when_python_cannot_bind_it(definition: str, text: str) -> None:
    (info,) = source_info.functions(definition)
    call = specs.parse_call(text)
    problem = plan_fit.mismatch(call, info)
    assert (problem == "") == python_binds(definition, call), problem


def test_the_mismatch_is_said_in_words() -> None:
    (info,) = source_info.functions("def train_step(x, y, lr, step): pass")
    assert plan_fit.mismatch(specs.parse_call("float32[3]"), info) == (
        "train_step takes x, y, lr, step; this call passes 1 argument(s), without y, lr, step"
    )
    assert plan_fit.mismatch(specs.parse_call("1, 2, 3, 4, 5"), info) == (
        "train_step takes x, y, lr, step; this call passes 5 positional argument(s)"
    )
    assert "no parameter rate to pass by name" in plan_fit.mismatch(specs.parse_call("1, 2, 3, rate=4"), info)


SUGGESTED = [
    ("def f(x, n): pass", "?, ?"),
    ("def f(x: tf.Tensor, lr: float = 0.01, step: int = 0): pass", "float32[2,3], lr=0.01, step=0"),
    ("def f(n: int, flag: bool, name: str, rate: float): pass", '1, True, "a", 0.5'),
    ("def f(x, z=np.zeros(3)): pass", "?"),  # a default the plan cannot write: Python passes it
    ("def f(x, z=tf.zeros(3)): pass", "?, z=tf.zeros(3)"),  # one it can
    ("def f(x: tf.Tensor, y): pass", "float32[2,3], int32[2] in [0, 10)"),  # labels are never < 0
    (
        "def f(images: tf.Tensor, labels: tf.Tensor, idx, n): pass",
        "float32[2,3], int32[2] in [0, 10), int32[2] in [0, 10), ?",
    ),
    ("def f(index: int): pass", "1"),  # a Python int, as annotated
    ("def f(x, *, k): pass", "?, k=?"),
    ("def f(): pass", "()"),
    (
        "@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec(shape=(), dtype=tf.int32)])\n"
        "def f(x, n): pass",
        "float32[2,3], int32[] in [0, 10)",  # an int tensor: a count or a label, not negative
    ),
]


@pytest.mark.parametrize(("definition", "expected"), SUGGESTED)
def test_the_suggested_call_comes_from_the_parameters(definition: str, expected: str) -> None:
    (info,) = source_info.functions("import tensorflow as tf\n" + definition)
    assert plan_fit.suggested_call(info) == expected
    if "?" not in expected:  # it runs as it is: it parses and binds
        assert plan_fit.mismatch(specs.parse_call(expected), info) == ""


def test_placeholders_are_named_by_parameter() -> None:
    (info,) = source_info.functions("def f(x, y, *, k): pass")
    assert plan_fit.placeholders("float32[3], ?, k=?", info).startswith("fill in y, k:")
    assert plan_fit.placeholders("float32[3], 2, k=1", info) == ""


def test_a_decorator_other_than_tf_function_is_not_second_guessed() -> None:
    (info,) = source_info.functions("@my_wrapper\ndef f(x): pass")
    assert info.wrapped
    (plain,) = source_info.functions("@tf.function(jit_compile=True)\ndef f(x): pass")
    assert not plain.wrapped


def test_a_placeholder_counts_as_the_argument_it_stands_for() -> None:
    (one,) = source_info.functions("def bad(x): pass")
    assert not plan_fit.fits(["?, ?"], one)  # two arguments for one parameter
    assert plan_fit.fits(["?"], one) and plan_fit.fits(["x=?"], one)


def test_the_tensor_fix_keeps_each_value_and_the_dtype_it_met() -> None:
    (info,) = source_info.functions("def train_step(x, y, lr, step): pass")
    lines = [
        "float32[8,3], float32[8,1], 0.01, 1",
        "int32[3], int32[3], lr=0.5, step=2",
        "float32[3], 1, 0.5, 7",
    ]
    assert plan_fit.as_tensors(lines, {"lr", "step"}, info) == [
        "float32[8,3], float32[8,1], tf.constant(0.01), tf.constant(1, tf.float32)",
        "int32[3], int32[3], lr=tf.constant(0.5), step=tf.constant(2)",  # no float tensor: an int stays one
        "float32[3], 1, tf.constant(0.5), tf.constant(7, tf.float32)",  # y is not named: kept
    ]


SPREAD_DEFINITIONS = [
    ("def f(x, y): pass", "*make_batch(32)", ""),
    ("def f(x, y, lr=0.1): pass", "*make_batch(32), lr=0.5", ""),
    ("def f(x, y): pass", "*make_batch(32), lr=0.5", "no parameter lr to pass by name"),
    ("def f(a, /, b): pass", "*make_batch(2), a=1", "no parameter a to pass by name"),
    ("def f(x, **kw): pass", "*make_batch(2), lr=1", ""),
    ("def f(): pass", "*make_batch(0)", ""),  # it may return ()
]


@pytest.mark.parametrize(("definition", "text", "problem"), SPREAD_DEFINITIONS)
def test_a_spread_is_not_counted_before_the_code_makes_it(definition: str, text: str, problem: str) -> None:
    """*make_batch(32) passes as many arguments as it returns: only its keywords are checked."""
    (info,) = source_info.functions(definition)
    found = plan_fit.mismatch(specs.parse_call(text), info)
    assert (problem in found) if problem else found == ""
    assert plan_fit.unfit(text, info) == found and plan_fit.fits([text], info) == (found == "")


def test_an_argument_the_code_makes_counts_as_one() -> None:
    (info,) = source_info.functions("def f(x, y): pass")
    assert plan_fit.mismatch(specs.parse_call("make_x(3), int32[3] in [0, 2)"), info) == ""
    assert "without y" in plan_fit.mismatch(specs.parse_call("make_x(3)"), info)


def test_new_forms_keep_the_covering_signature() -> None:
    assert plan_fit.covering_signature(["tf.ones([3]), int32[3] in [0, 5)", "float32[4], int32[4]"]) == (
        specs.TensorSpec("float32", (None,)),
        specs.TensorSpec("int32", (None,)),
    )
    assert plan_fit.covering_signature(["*make_batch(3)"]) is None


REGRESSION = """import tensorflow as tf

@tf.function
def train_step(x: tf.Tensor, y: tf.Tensor, lr: float = 0.01, step: int = 0):
    return tf.reduce_mean((x - y) ** 2) * lr + step
"""
CLASSIFIER = """import tensorflow as tf

def train_step(x: tf.Tensor, y: tf.Tensor, idx):
    loss = loss_fn(y, model(tf.gather(x, idx)))
    return loss * 2.0
"""


def test_labels_the_body_does_arithmetic_on_stay_floats() -> None:
    """A regression's y meets x in (x - y): a float, as x is; a classifier's y goes to its loss."""
    (regression,) = source_info.functions(REGRESSION)
    assert plan_fit.int_labels(regression, REGRESSION) == set()
    assert plan_fit.suggested_call(regression, REGRESSION) == "float32[2,3], float32[2,3], lr=0.01, step=0"
    (classifier,) = source_info.functions(CLASSIFIER)
    assert plan_fit.int_labels(classifier, CLASSIFIER) == {"y", "idx"}
    assert plan_fit.suggested_call(classifier, CLASSIFIER) == (
        "float32[2,3], int32[2] in [0, 10), int32[2] in [0, 10)"
    )
