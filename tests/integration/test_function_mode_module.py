"""Function mode through the real sandbox: a file whose top-level code prints and calls its own
tf.function in a loop. What it printed comes back as the module's (Report.module), its calls
and traces are counted apart from the plan's and agree with what plain TensorFlow reports for
the same file, and the plan's own counts are what they are without the loop."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from sandbox_support import pool  # noqa: F401 - fixture

from playground.cli import render_text
from playground.contract.job import Job

pytest.importorskip("tensorflow")

SOURCE = """import tensorflow as tf

print("module: start")

@tf.function
def train_step(x, n):
    print("tracing n =", n)
    return x * n

for n in (1, 2, 1, 3, 2, 4, 4, 5):
    train_step(tf.constant(1.0), n)
print("module: done")
"""
LOOP = SOURCE[SOURCE.index("for n in") : SOURCE.index('print("module: done")')]
PLAN = ("float32[3], n=2", "float32[3], n=2", "float32[3], n=7")
OWN_LINES = ("module:", "tracing n =")  # the file's own prints, not TF's log lines
# The file run by plain Python as an import runs it (not as __main__, as function mode does),
# then TF's own count of the function the module made: the reference.
PLAIN = (
    "import json, runpy, sys; ns = runpy.run_path(sys.argv[1]); "
    "print(json.dumps({'traces': int(ns['train_step'].experimental_get_tracing_count())}))"
)


def plain_python(tmp_path) -> tuple[list[str], int, list[str]]:
    """What plain Python prints, TF's tracing count, and TF's retracing warnings (on stderr)."""
    path = tmp_path / "user.py"
    path.write_text(SOURCE)
    done = subprocess.run(
        [sys.executable, "-c", PLAIN, str(path)], capture_output=True, text=True, timeout=120, check=True
    )
    *printed, counts = done.stdout.splitlines()
    warned = [
        line.removeprefix("WARNING:tensorflow:") for line in done.stderr.splitlines() if "retracing" in line
    ]
    return printed, json.loads(counts)["traces"], warned


def own(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(OWN_LINES)]


def unaddressed(warnings: list[str]) -> list[str]:
    """TF's warnings without the function's address, which differs from run to run."""
    return [re.sub(r" at 0x[0-9a-f]+>", ">", w) for w in warnings]


def test_the_modules_output_and_counts_come_back_apart_and_agree_with_plain_tf(pool, tmp_path) -> None:
    report = pool.submit(Job(source=SOURCE, function="train_step", calls=PLAN))
    assert report.status == "ok", report.error
    module = report.module
    assert module is not None and module.entry == "train_step" and not module.wrapped

    printed, traces, warned = plain_python(tmp_path)
    assert traces == 5  # 1, 2, 3, 4, 5: the reference is what it says
    assert own(module.stdout) == printed  # the module's output, in the order Python printed it
    assert (module.calls, module.traces) == (8, traces)  # the loop's 8 calls; TF's own count
    assert warned and unaddressed(module.retracing_warnings) == unaddressed(
        warned
    )  # TF's words, the module's
    assert report.message.endswith(
        "before the plan, the module's own code called train_step 8 time(s) (5 trace(s))"
    )

    # The plan's calls: their own output, their own tf.function, counted as without the loop.
    alone = pool.submit(Job(source=SOURCE.replace(LOOP, ""), function="train_step", calls=PLAN))
    assert alone.module is not None and (alone.module.calls, alone.module.traces) == (0, 0)
    (plan,), (reference,) = report.functions, alone.functions
    assert plan.tracing_count == reference.tracing_count == 2
    assert [(c.retraced, c.tracing_count) for c in plan.calls] == [
        (c.retraced, c.tracing_count) for c in reference.calls
    ]
    assert [own(c.stdout) for c in plan.calls] == [["tracing n = 2"], [], ["tracing n = 7"]]
    # TF's warnings logged while the module ran are the module's; one logged during the plan
    # counts the module's calls too (TF counts per Python function), and the report says so.
    assert not set(plan.retracing_warnings) & set(module.retracing_warnings)
    assert reference.retracing_warnings == []
    assert own(report.stdout) == printed + ["tracing n = 2", "tracing n = 7"]  # the whole run
    text = render_text.render(report)
    assert "  | module: start" in text
    assert "the numbers in its warning include the module's 8 call(s) before the plan" in text
