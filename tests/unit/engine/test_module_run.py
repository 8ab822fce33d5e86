"""Function mode: the file's own top-level code runs first, as an import would; what it printed
and its calls to the entry are reported apart from the plan's (Report.module), and the plan
counts on a tf.function of its own. Through the real engine, in process; the sandboxed run and
the differential check against plain Python are tests/integration/test_function_mode_module.py."""

from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")

from playground.cli import render_text
from playground.contract.job import Job
from playground.engine.pipeline import analyze

LOOP = """import tensorflow as tf

print("module: start")

@tf.function
def train_step(x, n):
    print("tracing n =", n)
    return x * n

for n in (1, 2, 1, 3, 2, 4):
    train_step(tf.constant(1.0), n)
print("module: done")
"""


def run(source: str, function: str = "train_step", calls: tuple[str, ...] = ("float32[3], n=2",) * 2):
    return analyze(Job(source=source, function=function, calls=calls, filename="user.py"))


def test_the_modules_own_calls_and_output_are_counted_apart_from_the_plans() -> None:
    report = run(LOOP)
    assert report.status == "ok", report.error
    module = report.module
    assert module is not None and not module.wrapped
    assert (module.entry, module.calls, module.traces) == ("train_step", 6, 4)  # 1, 2, 3, 4 traced
    assert module.stdout.splitlines() == [
        "module: start",
        "tracing n = 1",
        "tracing n = 2",
        "tracing n = 3",
        "tracing n = 4",
        "module: done",
    ]
    (plan,) = report.functions
    assert plan.tracing_count == 1 and [c.retraced for c in plan.calls] == [True, False]
    assert plan.calls[0].stdout == "tracing n = 2\n"  # the plan's own trace, on its own tf.function
    assert "called train_step 6 time(s) (4 trace(s))" in report.message
    text = render_text.render(report)
    assert "  | module: start" in text and "module-level code" in text
    assert "Before the plan, the module's own code called train_step 6 time(s) (4 trace(s))" in text


def test_tfs_retracing_warning_about_the_modules_calls_is_the_modules_not_the_plans() -> None:
    source = LOOP.replace("(1, 2, 1, 3, 2, 4)", "range(6)")
    report = run(source)
    assert report.module is not None and (report.module.calls, report.module.traces) == (6, 6)
    # TF's own count runs over the process's history (these tests share it): its words vary.
    assert any("triggered tf.function retracing" in w for w in report.module.retracing_warnings)
    assert report.functions[0].retracing_warnings == []
    assert report.functions[0].tracing_count == 1


def test_a_plain_def_entry_is_wrapped_for_the_plan_and_says_so() -> None:
    source = LOOP.replace("@tf.function\n", "")
    report = run(source)
    module = report.module
    assert module is not None and module.wrapped
    assert (module.calls, module.traces) == (None, None)  # eager calls: nothing traced
    assert module.stdout.count("tracing n =") == 6  # Python ran its body on every call
    assert report.functions[0].tracing_count == 1
    assert "plain def: the playground wrapped it in tf.function" in render_text.render(report)


def test_a_tf_function_the_module_makes_of_a_plain_entry_is_the_entrys() -> None:
    source = (
        LOOP.replace("@tf.function\n", "")
        .replace("for n in", "step = tf.function(train_step)\nfor n in")
        .replace("    train_step(tf.constant", "    step(tf.constant")
    )
    report = run(source)
    assert report.module is not None and report.module.wrapped
    assert (report.module.calls, report.module.traces) == (6, 4)


def test_a_module_that_never_calls_the_entry_adds_no_sentence() -> None:
    report = run(LOOP.split("for n in")[0])
    assert report.module is not None and (report.module.calls, report.module.traces) == (0, 0)
    assert report.module.stdout == "module: start\n"
    assert "before the plan" not in report.message
    assert "Before the plan" not in render_text.render(report)


def test_a_module_that_raises_keeps_what_it_printed() -> None:
    report = run(LOOP.replace('print("module: done")', 'print("about to fail")\n1 / 0'))
    assert report.status == "error" and report.error is not None and report.error.type == "ZeroDivisionError"
    assert report.module is not None and report.module.stdout.endswith("about to fail\n")


def test_script_mode_has_no_module_run() -> None:
    report = analyze(Job(source=LOOP, function=None, filename="user.py"))
    assert report.module is None
    assert report.functions[0].calls_not_listed + len(report.functions[0].calls) == 6
