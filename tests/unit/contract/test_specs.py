"""The call-plan grammar: tensor specs, literals, keyword calls, signatures and size caps."""

from __future__ import annotations

import pytest

from playground.contract import specs
from playground.contract.errors import SpecError, TensorTooLargeError


def test_tensor_spec_and_scalar():
    assert specs.parse_tensor_spec("float32[2,3]") == specs.TensorSpec("float32", (2, 3))
    assert specs.parse_tensor_spec("int32[]") == specs.TensorSpec("int32", ())
    assert str(specs.parse_tensor_spec(" bool [ 4 ] ")) == "bool[4]"


def test_call_mixes_tensors_literals_and_keywords():
    call = specs.parse_call('float32[2,3], 2.5, True, "a,b", None, n=1, label="x"')
    assert [str(a) for a in call.args] == ["float32[2,3]", "2.5", "True", '"a,b"', "None"]
    assert call.args[2].value is True and call.args[3].value == "a,b"
    assert [(k, v.value) for k, v in call.kwargs] == [("n", 1), ("label", "x")]


def test_empty_call_has_no_arguments():
    assert specs.parse_call("") == specs.CallSpec()
    assert specs.parse_call("   ") == specs.CallSpec()
    assert specs.parse_call(" () ") == specs.CallSpec()  # how a plan line writes it


def test_signature_allows_none_dims():
    sig = specs.parse_signature("float32[None,28,28,1], int32[None]")
    assert sig == (specs.TensorSpec("float32", (None, 28, 28, 1)), specs.TensorSpec("int32", (None,)))


@pytest.mark.parametrize(
    "text, named",
    [
        ("flaot32[3]", "did you mean float32"),
        ("float32[3,x]", "malformed dim 'x'"),
        ("float32[3", "unclosed bracket"),
        ("float32[None]", "dynamic dim 'None'"),
        ("float32[2.5]", "malformed dim '2.5'"),
        ("1,,2", "empty argument"),
        ("n=1, float32[3]", "positional argument 'float32[3]' after a keyword"),
        ("n=1, n=2", "'n' given twice"),
        ("np.zeros([3])", "cannot read argument 'np.zeros([3])'"),
        ("tf.linspace(0, 1, 3)", "tf.linspace is not a form the call plan reads"),
        ('"abc', "unterminated string"),
    ],
)
def test_bad_calls_name_the_offending_text(text, named):
    with pytest.raises(SpecError) as info:
        specs.parse_call(text)
    assert named in str(info.value)


def test_huge_tensor_refused_before_allocating():
    with pytest.raises(TensorTooLargeError, match="100,000,000,000 elements, over the cap"):
        specs.parse_call("float32[100000,1000000]")
    with pytest.raises(TensorTooLargeError, match="over the cap of 10"):
        specs.parse_call("float32[3], float32[3,3]", max_elements=10)  # the call's total counts


def test_dtype_names_are_tensorflows():
    tf = pytest.importorskip("tensorflow")
    for name in specs.DTYPES:
        assert tf.dtypes.as_dtype(name).name in (name, {"half": "float16", "double": "float64"}.get(name))


def test_sweep_grammar_and_resize():
    sweep = specs.parse_sweep("x[1]=8, 64,256")
    assert sweep == specs.Sweep("x", 1, (8, 64, 256)) and str(sweep) == "x[1]=8,64,256"
    call = specs.parse_call("float32[4,3], 2")
    resized = specs.resize(call, specs.Sweep(0, 1, (8,)), 8)
    assert str(resized) == "float32[4,8], 2"
    keyword = specs.resize(specs.parse_call("n=1, x=int32[2]"), specs.Sweep("x", 0, (5,)), 5)
    assert str(keyword) == "n=1, x=int32[5]"


@pytest.mark.parametrize(
    "text, named",
    [
        ("x=1,2", "expected ARG[DIM]=SIZE"),
        ("x[0]=8,zero", "sweep size 'zero'"),
        ("x[0]=" + ",".join(["2"] * 13), "at most 12"),
    ],
)
def test_bad_sweeps_name_the_problem(text, named):
    with pytest.raises(SpecError, match=named.replace("[", r"\[")):
        specs.parse_sweep(text)


def test_resize_refuses_what_the_call_cannot_take():
    call = specs.parse_call("float32[4], 2")
    with pytest.raises(SpecError, match="has no dimension 1"):
        specs.resize(call, specs.Sweep(0, 1, (8,)), 8)
    with pytest.raises(SpecError, match="has no dimension 0"):
        specs.resize(call, specs.Sweep(1, 0, (8,)), 8)  # a Python value has no dims
    with pytest.raises(SpecError, match="has 2 positional"):
        specs.resize(call, specs.Sweep(3, 0, (8,)), 8)
    with pytest.raises(TensorTooLargeError):
        specs.resize(call, specs.Sweep(0, 0, (10**9,)), 10**9)


@pytest.mark.parametrize(
    "text, named",
    [
        ("float32[²]", "malformed dim '²'"),  # str.isdigit() accepts it, int() not
        ("float32[١٦]", "malformed dim '١٦'"),  # int() reads Arabic-Indic digits
        ("float32[" + "9" * 5000 + "]", "too large: at most 18 digits"),  # int() refuses 4,300
        ("float32[" + "9" * 19 + "]", "too large: at most 18 digits"),
        ("float32[" + ",".join(["1"] * 255) + "]", "255 dimensions; TensorFlow allows at most 254"),
    ],
)
def test_a_dim_is_ascii_digits_few_enough_for_int(text, named):
    for parse in (specs.parse_call, specs.parse_signature):
        with pytest.raises(SpecError, match=named):
            parse(text)


def test_a_message_quotes_a_long_text_cut_short():
    with pytest.raises(SpecError) as info:
        specs.parse_call("float32[" + "9" * 100_000 + "]")
    assert len(str(info.value)) < 400


def test_an_astronomical_shape_is_refused_and_named_in_a_few_characters():
    """254 dims of 18 digits: 4,572 digits of elements, past what str() of an int may print."""
    text = "float32[" + ",".join(["999999999999999999"] * 254) + "]"
    with pytest.raises(TensorTooLargeError, match=r"~10\^4571 elements, over the cap"):
        specs.parse_call(text)
    assert len(specs.parse_signature(text)[0].shape) == 254  # a signature has no cap
    with pytest.raises(TensorTooLargeError) as info:
        specs.parse_call(text)
    assert len(str(info.value)) < 400


def test_sweep_sizes_and_positions_are_ascii_digits():
    for text in ("x[0]=²", "x[0]=١٦", "x[0]=" + "9" * 5000, "x[²]=8", "x[0" + "0" * 5000 + "]=8", "²[0]=8"):
        with pytest.raises(SpecError):
            specs.parse_sweep(text)


def test_tensors_of_given_values_constants_and_variables():
    call = specs.parse_call(
        "tf.constant(0.01), lr=tf.Variable(0.5), v=tf.constant([[1, 2], [3, 4]], dtype=tf.int64)"
    )
    first, (_lr, variable), (_v, matrix) = call.args[0], *call.kwargs
    assert first == specs.TensorValue("constant", 0.01, None, "tf.constant(0.01)")
    assert variable.maker == "Variable" and variable.value == 0.5
    assert matrix.dtype == "int64" and matrix.num_elements == 4
    assert matrix.expression() == "tf.constant([[1, 2], [3, 4]], tf.int64)"
    assert specs.parse_value('constant(1, "float64")').dtype == "float64"  # tf. and quotes optional


@pytest.mark.parametrize(
    "text, named",
    [
        ("tf.constant(1, flaot32)", "did you mean float32"),
        ("tf.constant(x)", "cannot read argument 'x'"),
        ("tf.constant({1: 2})", "needs numbers, booleans or strings"),
        ("tf.constant(1, shape=[3])", "not 'shape'"),
        ("tf.constant(1, tf.float32, 3)", "takes a value and a dtype here"),
        ("?", "? marks an argument still to write"),
    ],
)
def test_bad_tensor_values_name_the_problem(text, named):
    with pytest.raises(SpecError) as info:
        specs.parse_call(text)
    assert named in str(info.value)


def test_a_tensor_of_given_values_counts_toward_the_cap():
    with pytest.raises(TensorTooLargeError, match="over the cap of 10"):
        specs.parse_call("tf.constant([" + ", ".join(["0"] * 11) + "])", max_elements=10)
