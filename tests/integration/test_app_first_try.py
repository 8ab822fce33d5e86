"""A person's own code on the page (AppTest, recorded reports): the call plan follows the pasted
function, a plan that does not fit is refused before it runs with the mismatch in words, errors
are said where the eye is, and results that no longer match the inputs say so."""

from __future__ import annotations

import json

import repo_paths
from app_support import app, app_test  # noqa: F401 - app: fixture
from streamlit.testing.v1 import AppTest

from playground.reports.safe_text import unescape_markdown as shown
from playground.ui import keys

BROKEN = json.loads((repo_paths.DATA / "broken.job.json").read_text())

TRAIN_STEP = """import tensorflow as tf

@tf.function
def train_step(x: tf.Tensor, y: tf.Tensor, lr: float = 0.01, step: int = 0):
    return tf.reduce_mean((x - y) ** 2) * lr + step
"""
BARE = """import tensorflow as tf

@tf.function
def train_step(x, y, lr, step):
    return tf.reduce_mean((x - y) ** 2) * lr + step
"""


def tab(at: AppTest, label: str):
    """Opens a results tab (only the open one is drawn) and returns it."""
    at.session_state[keys.RESULT_TAB] = label
    at.run()
    return next(t for t in at.tabs if t.label == label)


def submitted() -> list:
    from playground.ui.run import executor

    return executor().executor.submitted


def texts(at: AppTest, kind: str) -> list[str]:
    return [shown(e.value) for e in at.get(kind)]


def test_a_pasted_function_gets_a_plan_from_its_parameters_and_runs_on_the_first_press(app) -> None:
    app.run()  # the gallery's first example, whose plan passes one tensor
    old_plan = app.text_area(key=keys.CALLS).value
    app.text_area(key=keys.SOURCE).input(TRAIN_STEP).run()
    assert app.selectbox(key=keys.FUNCTION).value == "train_step"
    assert app.text_area(key=keys.CALLS).value == "float32[2,3], float32[2,3], lr=0.01, step=0"
    note = next(c for c in texts(app, "caption") if c.startswith("A plan for"))
    assert "train_step(x, y, lr=0.01, step=0)" in note and old_plan.splitlines()[0] in note
    assert not app.warning  # nothing left to fix before Run
    before = len(submitted())
    app.button(key=keys.RUN).click().run()
    assert len(submitted()) == before + 1  # (the replay has no report for it: the job is the check)
    assert submitted()[-1].calls == ("float32[2,3], float32[2,3], lr=0.01, step=0",)


def test_without_annotations_the_plan_marks_what_to_fill_and_run_is_refused(app) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(BARE).run()
    assert app.text_area(key=keys.CALLS).value == "?, ?, ?, ?"
    warned = texts(app, "warning")
    assert any("fill in x, y, lr, step" in w for w in warned), warned  # before Run is pressed
    before = len(submitted())
    app.button(key=keys.RUN).click().run()
    assert len(submitted()) == before
    assert any(
        e.startswith("Not run: Call 1 ('?, ?, ?, ?'): fill in x, y, lr, step") for e in texts(app, "error")
    )
    assert app.text_area(key=keys.SOURCE).value == BARE  # the code is kept


def test_a_plan_that_does_not_fit_is_refused_with_the_mismatch_in_words(app) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(BARE).run()
    app.text_area(key=keys.CALLS).input("float32[3]\nfloat32[3], float32[3], 0.01, 1").run()
    mismatch = "Call 1 ('float32[3]'): train_step takes x, y, lr, step; this call passes 1 argument(s), without y, lr, step"
    assert mismatch in texts(app, "warning")  # said as the plan is typed
    before = len(submitted())
    app.button(key=keys.RUN).click().run()
    assert len(submitted()) == before
    assert any(e.startswith("Not run: " + mismatch) for e in texts(app, "error"))  # next to Run
    assert app.text_area(key=keys.CALLS).value.startswith("float32[3]\n")  # the plan is kept


def test_a_function_that_comes_back_gets_its_plan_back(app) -> None:
    app.run()
    plan = app.text_area(key=keys.CALLS).value  # the first example's, which fits process(x)
    source = app.text_area(key=keys.SOURCE).value
    app.text_area(key=keys.SOURCE).input(BARE).run()
    assert app.text_area(key=keys.CALLS).value == "?, ?, ?, ?"
    app.text_area(key=keys.CALLS).input("float32[3], float32[3], 0.5, 1").run()
    app.text_area(key=keys.SOURCE).input(source).run()
    assert app.text_area(key=keys.CALLS).value == plan  # nothing typed is lost
    app.text_area(key=keys.SOURCE).input(BARE).run()
    assert app.text_area(key=keys.CALLS).value == "float32[3], float32[3], 0.5, 1"


def test_the_plan_takes_constants_variables_and_python_values(app) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(TRAIN_STEP).run()
    plan = "float32[3], float32[3], lr=tf.constant(0.01), step=tf.Variable(1)\nfloat32[3], tf.constant([1.0, 2.0, 3.0]), 0.5, 2"
    app.text_area(key=keys.CALLS).input(plan).run()
    assert not app.warning
    app.button(key=keys.RUN).click().run()
    assert submitted()[-1].calls == tuple(plan.splitlines())


def test_add_this_call_replaces_a_plan_that_does_not_fit(app) -> None:
    app.session_state[keys.ARGS_PANEL] = True
    app.run()
    app.text_area(key=keys.SOURCE).input(BARE).run()
    app.text_area(key=keys.CALLS).input("float32[3]").run()  # the stale line
    app.selectbox(key=keys.param("kind", "lr")).set_value("python").run()
    app.button(key=keys.APPEND_CALL).click().run()
    assert app.text_area(key=keys.CALLS).value == "float32[3], float32[3], lr=1, float32[3]"
    app.button(key=keys.APPEND_CALL).click().run()  # a plan that fits is added to
    assert (
        app.text_area(key=keys.CALLS).value.splitlines() == ["float32[3], float32[3], lr=1, float32[3]"] * 2
    )


def test_a_run_that_ends_in_error_opens_on_the_error_and_says_it_whole(app) -> None:
    app.run()
    app.text_area(key=keys.SOURCE).input(BROKEN["source"]).run()
    app.text_area(key=keys.CALLS).input("float32[3]").run()
    app.button(key=keys.RUN).click().run()
    assert app.session_state[keys.RESULT_TAB] == "Problems"
    # Why first (the pitfall that names the cause), then the error as raised, whole, folded.
    assert any(m.startswith("**Why it failed** (line 5): .numpy() in bad") for m in texts(app, "markdown"))
    folded = next(e for e in app.expander if e.label.startswith("The error as raised"))
    assert shown(folded.label) == "The error as raised: **AttributeError** in call 1, line 5"
    whole = next(c.value for c in folded.code if c.value.startswith("in user code:"))
    assert "y = x.numpy()" in whole and "'SymbolicTensor' object has no attribute 'numpy'" in whole


def test_results_say_they_are_out_of_date_once_the_code_or_plan_changes(app) -> None:
    app.query_params["example"] = "retracing"
    app.run()
    app.button(key=keys.RUN).click().run()
    assert not any("Out of date" in w for w in texts(app, "warning"))
    app.text_area(key=keys.CALLS).input("float32[4]").run()
    assert any(w.startswith("Out of date: these results are from run 1") for w in texts(app, "warning"))
    app.text_area(key=keys.SOURCE).input("").run()  # an empty editor: still the old results, marked
    assert any(w.startswith("Out of date") for w in texts(app, "warning"))


def test_the_python_value_fix_applied_from_the_page_cuts_the_traces(monkeypatch) -> None:
    """python-scalar-arg's fix with one click: the plan passes n as tf.constant(...), the page
    runs it, and the Traces metric shows the count beside the run before (the real engine,
    one unsandboxed child process per run)."""
    app = app_test(monkeypatch, "ui_support:subprocess_engine", timeout=180)
    app.query_params["example"] = "python-scalar-arg"
    app.run()
    app.button(key=keys.RUN).click().run()
    problems = tab(app, "Problems")
    (apply,) = [b for b in problems.button if b.key and b.key.startswith(keys.APPLY_FIX)]
    assert apply.label == "Apply: pass n as tensors in the call plan, and run again"
    apply.click().run()
    assert app.text_area(key=keys.CALLS).value.splitlines() == [
        "float32[4], tf.constant(1, tf.float32)",
        "float32[4], tf.constant(2, tf.float32)",
        "float32[4], tf.constant(3, tf.float32)",
    ]
    traces = next(m for m in app.metric if m.label == "Traces")
    assert (traces.value, traces.delta) == ("1", "-2 vs run 1")  # 3 traces before, 1 after


def test_the_shape_fixes_are_one_click_each_and_the_count_falls(app) -> None:
    """excessive-retracing over shapes offers the covering input_signature and reduce_retracing;
    reduce_retracing applied from the page runs again (recorded: 4 traces, then 2)."""
    app.query_params["example"] = "many-shapes"
    app.run()
    app.button(key=keys.RUN).click().run()
    problems = tab(app, "Problems")
    labels = [b.label for b in problems.button if b.key and b.key.startswith(keys.APPLY_FIX)]
    assert labels == [
        "Apply: input_signature float32[None], and run again",
        "Apply: reduce_retracing, and run again",
    ]
    next(b for b in problems.button if b.label == labels[0]).click().run()
    assert submitted()[-1].signature == "float32[None]"  # (not recorded: the job is the check)
    app.session_state[keys.SIGNATURE] = ""
    app.button(key=keys.RUN).click().run()  # run 2: the example again, as run 1
    assert not next(m for m in app.metric if m.label == "Traces").delta  # no fix made this run
    problems = tab(app, "Problems")
    next(b for b in problems.button if b.label == labels[1]).click().run()
    assert app.session_state[keys.REDUCE_RETRACING] is True
    assert submitted()[-1].reduce_retracing is True
    traces = next(m for m in app.metric if m.label == "Traces")
    assert (traces.value, traces.delta) == ("2", "-2 vs run 2")


def test_a_share_link_of_code_nested_too_deep_draws_the_page_and_names_it(app: AppTest) -> None:
    """A link whose code is a default 600 levels deep: the page is drawn with the code kept, the
    sentence names the line, and Run refuses it in words (it raised RecursionError here)."""
    from playground.contract import share_link

    deep = "import tensorflow as tf\n\n\ndef f(x=" + "-" * 600 + "1):\n    return x\n"
    app.query_params.update(share_link.input_params(source=deep, function="f", calls="1", values={}))
    app.run()
    assert not app.exception
    assert app.text_area(key=keys.SOURCE).value == deep
    assert any("line 4: the code is nested more than 150 levels deep" in shown(e.value) for e in app.error)
    app.button(key=keys.RUN).click().run()
    assert not app.exception and not submitted()
    assert any("Not run" in shown(e.value) and "nested" in shown(e.value) for e in app.error)
