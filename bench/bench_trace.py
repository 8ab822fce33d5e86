"""Trace mode's cost (issue 41): the same program, plain and under `python -m playground trace`,
side by side in the same run, alternating, each program timing its own loop (so start-up and
TF's import, equal on both sides, are left out). Two workloads, as the issue names them:

  custom loop   1,000 steps of a tf.function train step on a small Keras model
  model.fit     5 epochs of a small model, 2,048 rows in batches of 32 (320 steps)

The target: trace mode at most 5% over plain. The order alternates (plain first, then traced
first): with plain always first, a process started second ran slower whatever it was. Prints each side's median, the overhead and the
target; exits 1 if a workload misses it.

    python bench/bench_trace.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.05

CUSTOM = """import time
import tensorflow as tf
import keras

model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
x, y = tf.random.normal([64, 16]), tf.random.normal([64, 1])

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss

train_step(x, y)  # the traces, before the clock
start = time.perf_counter()
for _ in range(1000):
    train_step(x, y)
print(f"loop_s={time.perf_counter() - start:.4f}")
"""

FIT = """import time
import numpy as np
import keras

model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
x, y = np.random.rand(2048, 16).astype("float32"), np.random.rand(2048, 1).astype("float32")
model.fit(x[:64], y[:64], batch_size=32, epochs=1, verbose=0)  # the traces, before the clock
start = time.perf_counter()
model.fit(x, y, batch_size=32, epochs=5, verbose=0)
print(f"loop_s={time.perf_counter() - start:.4f}")
"""


def loop_seconds(program: Path, traced: bool) -> float:
    args = ["-m", "playground", "trace", "--html", str(program.with_suffix(".html"))] if traced else []
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run(
        [sys.executable, *args, str(program)], capture_output=True, text=True, env=env, timeout=600
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("loop_s=")), None)
    if line is None:
        raise SystemExit(f"{program.name} failed:\n{done.stderr[-2000:]}")
    return float(line.split("=", 1)[1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    missed = False
    print(f"{'workload':12} {'plain s':>9} {'traced s':>9} {'overhead':>9}  target")
    with tempfile.TemporaryDirectory() as folder:
        for name, source in (("custom loop", CUSTOM), ("model.fit", FIT)):
            program = Path(folder, name.replace(" ", "_").replace(".", "_") + ".py")
            program.write_text(source)
            plain, traced = [], []
            for number in range(rounds):  # ABBA: drift, and going first or second, fall on both sides
                for side in (False, True) if number % 2 == 0 else (True, False):
                    (traced if side else plain).append(loop_seconds(program, traced=side))
            p, t = statistics.median(plain), statistics.median(traced)
            overhead = t / p - 1
            missed |= overhead > TARGET
            print(f"{name:12} {p:9.3f} {t:9.3f} {overhead:+9.1%}  <= {TARGET:.0%}")
            print(
                f"{'':12} plain {sorted(round(v, 3) for v in plain)}  traced {sorted(round(v, 3) for v in traced)}"
            )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
