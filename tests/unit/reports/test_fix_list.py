"""reports/fix_list.py: one entry per function and cause, counted and located from the calls'
own reasons and sites; a cache still growing late in the run is named (pure, no TF)."""

from __future__ import annotations

from playground.contract.job import CallRecord, FunctionReport
from playground.reports.fix_list import GROWING, fixes


def call(index: int, reason: str | None, site: str = "train.py:42") -> CallRecord:
    return CallRecord(
        index=index, args="", retraced=reason is not None, reason=reason, stdout="", output=None, site=site
    )


def function(name: str, calls: list[CallRecord], not_listed: int = 0, maker: str = "") -> FunctionReport:
    traces = sum(1 for c in calls if c.retraced)
    return FunctionReport(
        name=name,
        tracing_count=traces,
        calls=calls,
        concrete_signatures=[],
        converted_code=None,
        graph=None,
        hlo=None,
        timing=None,
        maker=maker,
        calls_not_listed=not_listed,
    )


def test_one_entry_per_function_and_cause_with_its_count_and_sites() -> None:
    steps = [call(0, "first call")] + [
        call(i, f"lr: Python value {i - 1} -> {i}", "train.py:42" if i % 2 else "eval.py:7")
        for i in range(1, 5)
    ]
    steps.append(call(5, "x: shape (4, 3) -> (8, 3); lr: Python value 4 -> 5"))
    (value, shape) = fixes([function("train_step", steps)])
    assert value.code == shape.code == "retracing-cause"
    assert (
        value.message
        == "train_step retraced 5 time(s): lr is a Python value that changes; from train.py:42, eval.py:7"
    )
    assert shape.message == "train_step retraced 1 time(s): the shape or dtype of x changes; from train.py:42"
    assert "tf.Variable" in value.fix and "input_signature" in shape.fix


def test_keras_shape_retraces_get_keras_advice_and_quiet_functions_no_entry() -> None:
    made = function(
        "multi_step_on_iterator",
        [call(0, "first call"), call(7, "iterator[0]: shape (16, 3) -> (None, 3)")],
        20,
        maker="keras: TensorFlowTrainer.make_train_function",
    )
    steady = function("predict", [call(0, "first call")], not_listed=500)
    (entry,) = fixes([made, steady])
    assert entry.function == "multi_step_on_iterator" and "drop_remainder=True" in entry.fix


def test_a_cache_still_growing_late_in_the_run_is_named_and_an_early_burst_is_not() -> None:
    late = [call(i, "first call" if i == 0 else f"n: Python value {i - 1} -> {i}") for i in range(GROWING)]
    growing = function("step", late, not_listed=2)  # the last trace at call 8 of 10
    codes = [w.code for w in fixes([growing])]
    assert codes == ["retracing-cause", "growing-cache"]
    assert fixes([growing])[1].message.startswith(
        f"step holds {GROWING} graphs and was still adding them at call {GROWING} of {GROWING + 2}"
    )
    early = function("warmup", late, not_listed=100)  # all traces in the first 8 of 108 calls
    assert [w.code for w in fixes([early])] == ["retracing-cause"]
