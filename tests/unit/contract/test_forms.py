"""contract/forms.py: tf.ones/zeros/fill/range/eye, tf.random.uniform/normal, DTYPE[DIMS] in
[low, high) and make_batch(32), parsed without running anything; their dtypes and shapes are
checked against plain TensorFlow's (the host predicts them for the element cap and the labels)."""

from __future__ import annotations

import pytest

from playground.contract import specs
from playground.contract.errors import SpecError, TensorTooLargeError
from playground.contract.specs import FromCode, TensorSpec, Values

PARSED = [
    ("tf.ones([3])", TensorSpec("float32", (3,), Values("ones"))),
    ("tf.ones((2, 3), tf.int32)", TensorSpec("int32", (2, 3), Values("ones"))),
    ("tf.zeros([2], dtype='float64')", TensorSpec("float64", (2,), Values("zeros"))),
    ("tf.zeros(shape=[], dtype=bool)", TensorSpec("bool", (), Values("zeros"))),
    ("tf.fill([2, 3], 1.5)", TensorSpec("float32", (2, 3), Values("fill", (1.5,)))),
    ("tf.fill([2], 7)", TensorSpec("int32", (2,), Values("fill", (7,)))),
    ("tf.fill([2], True)", TensorSpec("bool", (2,), Values("fill", (True,)))),
    ("tf.range(5)", TensorSpec("int32", (5,), Values("range", (0, 5, 1)))),
    ("tf.range(1, 6, 2)", TensorSpec("int32", (3,), Values("range", (1, 6, 2)))),
    ("tf.range(0, 1, 0.1)", TensorSpec("float32", (10,), Values("range", (0, 1, 0.1)))),
    ("tf.range(3, dtype=tf.float64)", TensorSpec("float64", (3,), Values("range", (0, 3, 1)))),
    ("tf.eye(3)", TensorSpec("float32", (3, 3), Values("eye", (3, 3)))),
    ("tf.eye(2, 4, dtype=tf.int32)", TensorSpec("int32", (2, 4), Values("eye", (2, 4)))),
    ("int32[32] in [0, 10)", TensorSpec("int32", (32,), Values("uniform", (0, 10)))),
    ("int32[32] in [0, 9]", TensorSpec("int32", (32,), Values("uniform", (0, 10)))),  # closed: ints only
    ("float32[32,10] in [0, 1)", TensorSpec("float32", (32, 10), Values("uniform", (0, 1)))),
    (
        "tf.random.uniform([32], 0, 10, dtype=tf.int32)",
        TensorSpec("int32", (32,), Values("uniform", (0, 10))),
    ),
    ("tf.random.uniform([2], maxval=4.0)", TensorSpec("float32", (2,), Values("uniform", (0, 4.0)))),
    ("tf.random.uniform([2], seed=7)", TensorSpec("float32", (2,), Values("uniform", (0, 1), 7))),
    ("tf.random.normal([2, 3])", TensorSpec("float32", (2, 3), Values("normal", (0.0, 1.0)))),
    (
        "tf.random.normal([2], 1, stddev=2, dtype=tf.float64, seed=3)",
        TensorSpec("float64", (2,), Values("normal", (1, 2), 3)),
    ),
    ("make_batch(32)", FromCode("make_batch", (32,))),
    ("make_batch(32, kind='train')", FromCode("make_batch", (32,), (("kind", "train"),))),
    ("*make_batch(32)", FromCode("make_batch", (32,), spread=True)),
]


@pytest.mark.parametrize(("text", "expected"), PARSED)
def test_each_form_parses_and_its_text_parses_back_to_it(text: str, expected: object) -> None:
    parsed = specs.parse_value(text)
    assert parsed == expected
    assert specs.parse_value(str(parsed)) == parsed  # str() is the canonical text


def test_canonical_texts_are_short() -> None:
    assert [
        str(specs.parse_value(t))
        for t in ("tf.random.uniform([8], 0, 10, dtype=tf.int32)", "tf.range(0.0, 4)")
    ] == [
        "int32[8] in [0, 10)",
        "tf.range(4, dtype=tf.float32)",
    ]


def test_a_spread_is_a_calls_positional_arguments_alone() -> None:
    call = specs.parse_call("*make_batch(32), lr=0.1")
    assert call.spread and str(call) == "*make_batch(32), lr=0.1"
    assert not specs.parse_call("make_batch(32), 1").spread
    for text in ("float32[3], *make_batch(3)", "*make_batch(3), 1", "x=*make_batch(3)"):
        with pytest.raises(SpecError, match="stands for all of a call's positional arguments"):
            specs.parse_call(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tf.ones(x)", "tf.ones needs a shape such as [3], got 'x'"),
        ("tf.zeros([-1])", "tf.zeros needs a shape such as [3], got '[-1]'"),
        ("tf.ones([3], flaot32)", "did you mean float32"),
        ("tf.ones([3], tf.string)", "tf.ones makes no string tensors"),
        ("tf.ones([3], order='C')", "tf.ones takes shape, dtype here, not 'order'"),
        ("int32[3] in [10, 0)", "low 10 is not below high 0 in 'int32[3] in [10, 0)'"),
        ("int32[3] in [5, 5)", "low 5 is not below high 5"),
        ("int32[3] in [5, 4]", "low 5 is above high 4"),
        ("int32[3] in [0.5, 3)", "a bound of int32 needs an int, got '0.5'"),
        ("float32[3] in [0, 1]", "a float tensor's bounds are half-open"),
        ("bool[3] in [0, 2)", "bounds need an int or float dtype, not bool"),
        ("uint8[3] in [0, 300)", "bounds [0, 300) do not fit uint8, 0 to 255"),
        ("int32[3] in 0, 10", "bounds are written [low, high)"),
        ("int32[3] in [0, 1, 2)", "bounds need a low and a high"),
        (
            "tf.random.uniform([3], dtype=tf.int32)",
            "tf.random.uniform of int32 needs maxval, as in TensorFlow",
        ),
        ("tf.random.uniform([3], 0, 10, dtype=tf.uint8)", "tf.random.uniform makes float16"),
        ("tf.random.normal([3], dtype=tf.int32)", "tf.random.normal makes float16"),
        ("tf.random.normal([3], stddev=-1)", "stddev -1 is negative"),
        ("tf.random.normal([3], seed=-2)", "a seed is a non-negative int"),
        ("tf.range(5, 1)", "tf.range needs start <= limit when delta > 0"),
        ("tf.range(0, 5, 0)", "tf.range needs a delta other than 0"),
        ("tf.range(0.5, 3, dtype=tf.int32)", "0.5 is not a int32"),
        ("tf.range(3, dtype=tf.uint8)", "tf.range makes float16"),
        ("tf.range()", "tf.range needs a limit"),
        ("tf.eye()", "tf.eye needs a number of rows"),
        ("tf.eye(-2)", "tf.eye needs a non-negative int"),
        ("tf.fill([2], None)", "tf.fill needs a shape and one value"),
        ("tf.fill([2], 2 ** 40)", "tf.fill needs a literal, got '2 ** 40'"),
        ("tf.linspace(0, 1, 5)", "tf.linspace is not a form the call plan reads"),
        ("make_batch(n)", "make_batch(...) calls a function of your code with literal arguments only"),
        ("make_batch(n=1, 2)", "positional argument '2' after a keyword argument"),
        ("float[3]", "(did you mean float32?)"),
        ("int[3]", "(did you mean int32?)"),
        ("long[3]", "(did you mean int64?)"),
        ("str[3]", "(did you mean string?)"),
    ],
)
def test_a_bad_form_is_named_as_typed(text: str, message: str) -> None:
    with pytest.raises(SpecError) as info:
        specs.parse_call(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "tf.ones([4000, 5000])",
        "tf.fill([4000, 5000], 1)",
        "tf.range(20000000)",
        "tf.eye(5000)",
        "int32[4000,5000] in [0, 2)",
        "tf.random.uniform([4000, 5000])",
        "tf.random.normal([4000, 5000])",
    ],
)
def test_each_form_counts_toward_the_element_cap(text: str) -> None:
    with pytest.raises(TensorTooLargeError, match="over the cap"):
        specs.parse_call(text)  # 20,000,000 elements > 16,777,216, refused before anything is made
    with pytest.raises(TensorTooLargeError, match="over the cap of 10"):
        specs.parse_call(
            text.replace("4000, 5000", "11")
            .replace("4000,5000", "11")
            .replace("20000000", "11")
            .replace("5000", "4"),
            max_elements=10,
        )


def test_resizing_keeps_the_form_and_refuses_range_eye_and_code() -> None:
    sweep = specs.Sweep(0, 0, (8,))
    assert str(specs.resize(specs.parse_call("int32[4] in [0, 3)"), sweep, 8)) == "int32[8] in [0, 3)"
    assert str(specs.resize(specs.parse_call("tf.ones([4, 2])"), sweep, 8)) == "tf.ones([8, 2])"
    for text in ("tf.range(4)", "tf.eye(4)"):
        with pytest.raises(SpecError, match="its numbers set its shape"):
            specs.resize(specs.parse_call(text), sweep, 8)
    with pytest.raises(SpecError, match="your code makes arguments for"):
        specs.resize(specs.parse_call("float32[4], make_y(4)"), sweep, 8)


# Plain TensorFlow's own dtype and shape for the typed text, against the host's prediction.
AS_TF = [
    "tf.ones([3])",
    "tf.ones((2, 3), tf.int32)",
    "tf.zeros([2], dtype='float64')",
    "tf.zeros([2], tf.string)",
    "tf.fill([2, 3], 1.5)",
    "tf.fill([2], 7)",
    "tf.fill([2], 1099511627776)",
    "tf.fill([], False)",
    "tf.fill([2], 'a')",
    "tf.range(5)",
    "tf.range(1, 6, 2)",
    "tf.range(5, 1, -2)",
    "tf.range(0, 1, 0.1)",
    "tf.range(0.1, 0.7, 0.2)",
    "tf.range(3, 2.5, -0.25)",
    "tf.range(1e10, 10000000003.0)",  # float32 holds both as one number: empty
    "tf.range(0, 1, 0.1, dtype=tf.float16)",
    "tf.range(0, 1, 0.1, dtype=tf.bfloat16)",
    "tf.range(0, 1, 0.1, dtype=tf.float64)",
    "tf.range(2147483648, 2147483650)",
    "tf.range(10, dtype=tf.int64)",
    "tf.range(0)",
    "tf.eye(3)",
    "tf.eye(2, 4, dtype=tf.int32)",
    "tf.eye(0)",
    "tf.eye(2, dtype=tf.bool)",
    "tf.random.uniform([32], 0, 10, dtype=tf.int32)",
    "tf.random.uniform([4, 2])",
    "tf.random.uniform([2], 0, 10, dtype=tf.bfloat16)",
    "tf.random.normal([2, 3])",
    "tf.random.normal([2], dtype=tf.float16)",
]


@pytest.mark.parametrize("text", AS_TF)
def test_the_host_predicts_tensorflows_dtype_and_shape(text: str) -> None:
    tf = pytest.importorskip("tensorflow")
    made = eval(text, {"tf": tf})  # noqa: S307 - the test's own texts, in plain TensorFlow
    spec = specs.parse_value(text)
    assert isinstance(spec, TensorSpec)
    assert (tf.dtypes.as_dtype(spec.dtype), spec.shape) == (made.dtype, tuple(made.shape))
