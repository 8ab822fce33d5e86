"""The page in function mode, on a file whose top-level code prints and calls the entry in a
loop: the Console shows the module's output apart from the plan's calls, and the Traces tab and
the summary count the module's calls apart from the plan's (the real engine, one unsandboxed
child process per run: ui_support.subprocess_engine)."""

from __future__ import annotations

from app_support import app_test
from streamlit.testing.v1 import AppTest

from playground.reports.safe_text import unescape_markdown as shown
from playground.ui import keys

SOURCE = """import tensorflow as tf

print("module: start")

@tf.function
def train_step(x, n):
    print("tracing n =", n)
    return x * n

for n in range(6):
    train_step(tf.constant(1.0), n)
print("module: done")
"""
PLAIN = SOURCE.replace("@tf.function\n", "").replace("for n in range(6)", "for n in range(2)")


def tab(at: AppTest, label: str):
    at.session_state[keys.RESULT_TAB] = label
    at.run()
    return next(t for t in at.tabs if t.label == label)


def run(at: AppTest, source: str) -> None:
    at.run()
    at.text_area(key=keys.SOURCE).input(source).run()
    at.text_area(key=keys.CALLS).input("float32[3], n=2\nfloat32[3], n=2").run()
    at.button(key=keys.RUN).click().run()
    assert not at.exception


def test_the_page_shows_the_modules_output_and_its_calls_apart_from_the_plans(monkeypatch) -> None:
    at = app_test(monkeypatch, "ui_support:subprocess_engine", timeout=180)
    run(at, SOURCE)
    assert at.session_state[keys.RESULT].job.function == "train_step"
    assert next(m.value for m in at.metric if m.label == "Traces") == "1"  # the plan's own
    assert any(
        shown(s.value).endswith(
            "before the plan, the module's own code called train_step 6 time(s) (6 trace(s))"
        )
        for s in at.success
    )

    console = tab(at, "Console")
    headings = [shown(m.value) for m in console.markdown]
    blocks = [c.value for c in console.code]
    module = headings.index(
        "**Module-level code** (the file's own top-level code, run before the plan's calls)"
    )
    assert blocks[0].startswith("module: start\ntracing n = 0\n") and "module: done" in blocks[0]
    assert module < headings.index("**Call 1:** `float32[3], n=2` · traced")
    assert blocks[1].startswith("tracing n = 2") and "module: start" not in blocks[1]

    traces = tab(at, "Traces")
    assert [shown(i.value) for i in traces.info] == [
        "Before the plan, the module's own code called train_step 6 time(s) (6 trace(s)); the plan's "
        "calls are counted apart, on a tf.function of their own."
    ]
    assert any("while the module-level code ran" in shown(w.value) for w in traces.warning)
    rows = traces.dataframe[0].value.to_dict("records")
    assert [r["traced"] for r in rows] == ["traced", "reused graph"]  # the plan's two calls only


def test_a_plain_def_entry_says_the_playground_wrapped_it(monkeypatch) -> None:
    at = app_test(monkeypatch, "ui_support:subprocess_engine", timeout=180)
    run(at, PLAIN)
    assert at.session_state[keys.RESULT].report.module.wrapped
    notes = [shown(i.value) for i in tab(at, "Traces").info]
    assert notes == [
        "train_step is a plain def: the playground wrapped it in tf.function to run the plan. Undecorated, "
        "Python would run it eagerly: no traces, and its Python side effects (print, list appends) on every call."
    ]
    assert tab(at, "Console").code[0].value.count("tracing n =") == 2  # eager: every call printed
