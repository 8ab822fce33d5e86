"""Records real engine reports for the UI tests' fake executor (imports TF; run outside Streamlit)."""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from playground.contract.job import Job, job_to_json
from playground.engine.pipeline import analyze
from playground.gallery import BY_SLUG

HERE = pathlib.Path(__file__).parent

SQUARE = """import tensorflow as tf

@tf.function
def square_sum(x, n):
    y = x * x
    for _ in tf.range(n):
        y = y + 1.0
    return tf.reduce_sum(y)
"""

BROKEN = """import tensorflow as tf

@tf.function
def bad(x):
    y = x.numpy()
    return y
"""

KERAS_FIT = """import numpy as np
import tensorflow as tf
import keras

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
for rows in (32, 40):  # 40 rows in batches of 16 leave a last batch of 8
    model.fit(np.ones((rows, 3)), np.ones((rows, 1)), batch_size=16, epochs=1, verbose=0)
for n in (1, 2, 3):
    model.predict(np.ones((n, 3)), verbose=0)
"""

# tf.numpy_function under jit_compile=True, asked for in the decorator only (the run's option
# off): XLA has no kernel for PyFunc, and the Problems tab says so before XLA's own error.
NUMPY_JIT = """import numpy as np
import tensorflow as tf


@tf.function(jit_compile=True)
def f(x):
    y = tf.numpy_function(np.sin, [x], tf.float32)
    return y * 2
"""

# A shape known only at run time, fixed at trace time by len(): TensorFlow's error leaves a
# blank line for each frame it hides; the pitfall that explains it is shown first.
SHAPE_NONE = """import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def halves(x):
    n = len(x)
    return tf.reshape(x, [n, 2])
"""

JOBS = {
    "retracing": BY_SLUG["retracing"].job(),
    "retracing_timing": BY_SLUG["retracing"].job(timing=True, timing_budget_s=1.0, jit_compile=True),
    "retracing_numbers": BY_SLUG["retracing"].job(numbers=True),  # the Timing tab's numbers table
    "retracing_sweep": BY_SLUG["retracing"].job(
        timing=True, timing_budget_s=1.0, jit_compile=True, sweep="x[0]=16,64,256,1024"
    ),
    "square_sum": Job(
        source=SQUARE, function="square_sum", calls=("float32[4], n=2", "float32[4], n=3", "float32[5], n=2")
    ),
    "broken": Job(source=BROKEN, function="bad", calls=("float32[3]",)),
    # Compare mode's two sides: the same plan without and with reduce_retracing.
    "many_shapes": BY_SLUG["many-shapes"].job(),
    "many_shapes_reduce": BY_SLUG["many-shapes"].job(reduce_retracing=True),
    "scripted_snippet": BY_SLUG["scripted-snippet"].job(),  # presenter mode's step after retracing
    "keras_fit": Job(source=KERAS_FIT, function=None),  # functions Keras makes: the Traces tab's panels
    "numpy_jit": Job(source=NUMPY_JIT, function="f", calls=("float32[3]",)),
    "shape_none": Job(source=SHAPE_NONE, function="halves", calls=("float32[3]",)),
}

# Trace mode's own report of a whole program (`python -m playground trace`), as a visitor opens
# it in the page: 30 calls of step, 3 of them traced and listed; tf.data's map made for it.
TRACE_PROGRAM = """import tensorflow as tf


@tf.function
def step(x, lr):
    return x * lr


for epoch in range(3):
    lr = 0.1 * (epoch + 1)  # a Python float: a new graph each epoch
    for _ in range(10):
        step(tf.ones([2]), lr)
for item in tf.data.Dataset.range(4).map(lambda v: v * 2):
    pass
"""


def record_trace_program() -> None:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        program = pathlib.Path(folder) / "train.py"
        program.write_text(TRACE_PROGRAM)
        out = HERE / "trace_program.json"
        root = str(pathlib.Path(__file__).resolve().parents[2])
        subprocess.run(
            [sys.executable, "-m", "playground", "trace", "--html", str(HERE / "trace_program.html"),
             "--json", str(out), "train.py"],
            cwd=folder, env={**__import__("os").environ, "PYTHONPATH": root}, check=True,
        )  # fmt: skip
        (HERE / "trace_program.html").unlink()
    print("trace_program", out)


if __name__ == "__main__":
    from playground.engine import frames

    frames.hide_caller(__file__)  # TF's op stacks would name this script in the recordings
    if "trace_program" in sys.argv[1:]:
        record_trace_program()
    for name, job in JOBS.items():
        if len(sys.argv) > 1 and name not in sys.argv[1:]:
            continue
        report = analyze(job)
        (HERE / f"{name}.json").write_text(report.to_json(indent=1))
        (HERE / f"{name}.job.json").write_text(job_to_json(job))
        print(name, report.status, report.tracing_count, report.message)
