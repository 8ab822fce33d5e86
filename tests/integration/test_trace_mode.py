"""Trace mode on real programs in their own process (`python -m playground trace PROGRAM ARGS`,
and `with playground.watch(...)`), against the same program run as `python PROGRAM ARGS`: the
same output and exit status, and trace counts equal to what TF's own objects say, read by the
program itself at its end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import repo_paths

pytest.importorskip("tensorflow")

TRAIN = """import json
import sys

import numpy as np
import tensorflow as tf
import keras

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD()


@tf.function
def train_step(x, y, lr):
    optimizer.learning_rate.assign(lr)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


steps = int(sys.argv[1])
for step in range(steps):
    train_step(tf.ones([4, 3]), tf.ones([4, 1]), 0.01 / (1 + step // 2))  # line 24: lr changes
model.compile(optimizer="sgd", loss="mse")
for rows in (32, 40):  # a last batch of 8 in the second fit
    model.fit(np.ones((rows, 3)), np.ones((rows, 1)), batch_size=16, verbose=0)  # line 27

import gc
print(json.dumps({f._name: f.experimental_get_tracing_count() for f in gc.get_objects()
                  if isinstance(f, tf.types.experimental.PolymorphicFunction)
                  and f._name in ("train_step", "multi_step_on_iterator")}))
"""
FAILING = """import tensorflow as tf

@tf.function
def f(x):
    return x + 1

print(int(f(tf.constant(1))))
f(tf.constant(2)).nmupy()
"""


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(repo_paths.ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_training_program_traced_tells_its_own_story_and_what_to_fix(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(TRAIN)
    plain = run(["train.py", "12"], tmp_path)
    traced = run(["-m", "playground", "trace", "--html", "out.html", "train.py", "12"], tmp_path)
    assert (traced.returncode, traced.stdout) == (plain.returncode, plain.stdout) == (0, plain.stdout)
    counts = json.loads(plain.stdout.splitlines()[-1])  # TF's own, as the program read them
    report = json.loads((tmp_path / "out.json").read_text())
    (train_step,) = report["functions"]
    assert train_step["name"] == "train_step" and train_step["tracing_count"] == counts["train_step"] == 6
    assert len(train_step["calls"]) + train_step["calls_not_listed"] == 12  # only the traced are listed
    assert [c["site"] for c in train_step["calls"]] == ["train.py:24"] * 6
    keras_train = next(f for f in report["library_functions"] if f["name"] == "multi_step_on_iterator")
    assert keras_train["maker"] == "keras: TensorFlowTrainer.make_train_function"
    assert keras_train["tracing_count"] == counts["multi_step_on_iterator"] == 2
    assert keras_train["made_site"] == "train.py:27"
    assert "iterator[0]: shape (16, 3) -> (None, 3)" in keras_train["calls"][1]["reason"]
    assert all(ops > 0 for ops in train_step["trace_ops"]) and len(train_step["trace_ops"]) == 6
    fixes = [(w["code"], w["function"]) for w in report["warnings"]]
    assert fixes == [("retracing-cause", "train_step"), ("retracing-cause", "multi_step_on_iterator")]
    assert report["warnings"][0]["message"] == (
        "train_step retraced 5 time(s): lr is a Python value that changes; from train.py:24"
    )
    page = (tmp_path / "out.html").read_text()
    assert "default-src 'none'" in page and "http://" not in page and "https://" not in page
    assert (
        traced.stderr.strip()
        .splitlines()[-1]
        .startswith("tf-playground: 1 function(s) of yours traced 6 time(s); libraries made")
    )


def test_a_failing_program_exits_and_prints_as_python_does(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(FAILING)
    plain = run(["prog.py"], tmp_path)
    traced = run(["-m", "playground", "trace", "prog.py"], tmp_path)
    assert (traced.returncode, traced.stdout) == (plain.returncode, plain.stdout) == (1, "2\n")
    python_said = plain.stderr[plain.stderr.index("Traceback") :]
    assert python_said.strip().endswith("Did you mean: 'numpy'?")
    assert python_said in traced.stderr  # the traceback, word for word, then our one line
    report = json.loads((tmp_path / "tf-playground-report.json").read_text())
    assert report["status"] == "error" and report["error"]["type"] == "AttributeError"
    assert report["error"]["line"] == 8


def test_watch_around_a_block_writes_the_report_in_the_chosen_language(tmp_path: Path) -> None:
    (tmp_path / "block.py").write_text("""import tensorflow as tf
import playground

@tf.function
def double(x):
    return x * 2

with playground.watch("report.html", language="zh_CN") as watched:
    for n in (1, 2, 3):
        double(tf.ones([n]))
print(watched.report.functions[0].tracing_count)
""")
    done = run(["block.py"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3\n"
    page = (tmp_path / "report.html").read_text()
    assert '<html lang="zh_CN">' in page and "要修复的问题" in page
    report = json.loads((tmp_path / "report.json").read_text())  # in the same language
    assert [(w["code"], w["function"]) for w in report["warnings"]] == [("retracing-cause", "double")]
    assert report["warnings"][0]["message"].startswith("double 重新追踪了 2 次")
