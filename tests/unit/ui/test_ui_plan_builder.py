"""ui/plan.py's per-parameter builder: a label, class or index parameter (y, labels, idx) starts as
an int tensor, and an int tensor is written with bounds that keep it non-negative (a Keras
SparseCategoricalCrossentropy refuses a label of -5), in the grammar the plan parses."""

from __future__ import annotations

import pytest
import streamlit as st

from playground.contract import specs
from playground.ui import keys, plan

PARAMS = ("x", "labels", "idx", "n")


@pytest.fixture(autouse=True)
def fresh_state():
    """Bare mode: st.session_state is this process's own; each test starts without the keys."""
    held = [keys.param(kind, name) for name in PARAMS for kind in ("kind", "dtype", "shape", "value")]
    for key in held:
        st.session_state.pop(key, None)
    yield
    for key in held:
        st.session_state.pop(key, None)


def test_a_label_parameter_starts_as_bounded_ints_and_others_as_floats() -> None:
    assert plan.default_dtype("labels") == plan.default_dtype("idx") == "int32"
    assert plan.default_dtype("x") == plan.default_dtype("n") == "float32"
    assert plan.param_arg("labels", dynamic=False) == "int32[3] in [0, 10)"
    assert plan.param_arg("x", dynamic=False) == "float32[3]"


def test_any_int_tensor_is_bounded_in_a_call_but_not_in_a_signature() -> None:
    st.session_state[keys.param("dtype", "n")] = "int64"
    st.session_state[keys.param("shape", "n")] = "None,4"
    assert plan.param_arg("n", dynamic=False) == "int64[1,4] in [0, 10)"
    assert plan.param_arg("n", dynamic=True) == "int64[None,4]"  # input_signature's grammar
    line = ", ".join(plan.param_arg(p, dynamic=False) for p in PARAMS)
    assert [str(a) for a in specs.parse_call(line).args] == [
        "float32[3]",
        "int32[3] in [0, 10)",
        "int32[3] in [0, 10)",
        "int64[1,4] in [0, 10)",
    ]
    assert specs.parse_signature(", ".join(plan.param_arg(p, dynamic=True) for p in PARAMS))


def test_a_label_the_function_does_arithmetic_on_starts_as_floats() -> None:
    from playground.contract import source_info

    source = "def step(x, y, labels):\n    return loss(labels, x) + tf.reduce_sum((x - y) ** 2)\n"
    (info,) = source_info.functions(source)
    st.session_state[keys.SOURCE] = source
    try:
        assert [plan.default_dtype(p, info) for p in info.params] == ["float32", "float32", "int32"]
        assert plan.param_arg("y", dynamic=False, info=info) == "float32[3]"
    finally:
        st.session_state.pop(keys.SOURCE, None)
