"""Checks the timing lab against plain timeit: eager/graph ratio fidelity and harness overhead.

Run: /opt/tf-playground/venv/bin/python bench/bench_timing.py
Targets (issue 5): ratios agree with timeit within 25%; per-call harness overhead under 5% for a
function of about 100 us.
"""
from __future__ import annotations

import datetime
import os
import platform
import sys
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

from playground.engine import device, timing  # noqa: E402


def chain40(x):
    for _ in range(20):
        x = tf.sin(x)
        x = x * 1.0001
    return x


def matmul384(a):
    return tf.matmul(a, a)


def timeit_per_call(fn, args, budget_s=1.5):
    timer = timeit.Timer(lambda: fn(*args))
    number, _ = timer.autorange()
    repeats = max(5, int(budget_s / max(1e-9, timer.timeit(number) / number * number)))
    samples = [t / number for t in timer.repeat(repeat=min(repeats, 50), number=number)]
    samples.sort()
    return samples[len(samples) // 2]


def fidelity(name, fn, args):
    measured = timing.measure(fn, {}, list(args), {}, budget_s=3.0, device="/CPU:0", xla=False)
    graph_fn = tf.function(fn)
    graph_fn(*args)
    eager_t, graph_t = timeit_per_call(fn, args), timeit_per_call(graph_fn, args)
    lab = measured.eager.median_s / measured.graph.median_s
    plain = eager_t / graph_t
    gap = abs(lab - plain) / plain
    print(f"{name:28} lab eager/graph {lab:7.2f}x   timeit {plain:7.2f}x   "
          f"gap {gap * 100:5.1f}%  {'OK' if gap <= 0.25 else 'OVER 25%'}")
    return gap


def overhead():
    x = tf.random.normal([220, 220])
    fn = tf.function(lambda a: tf.matmul(a, a))
    fn(x)
    plain = timeit_per_call(fn, (x,))
    mode, _, _ = timing.time_mode(lambda: fn(x), 2.0, lambda: None)
    extra = (mode.median_s - plain) / plain
    print(f"{'harness overhead':28} lab {mode.median_s * 1e6:7.1f} us   timeit {plain * 1e6:7.1f} us"
          f"   overhead {extra * 100:+5.1f}%  {'OK' if extra < 0.05 else 'OVER 5%'}")
    return extra


def main():
    print(f"bench_timing  {datetime.date.today()}  {device.cpu_model()}  {os.cpu_count()} cores  "
          f"TF {tf.__version__}  Python {platform.python_version()}")
    fidelity("overhead-bound: 40 ops [16]", chain40, (tf.random.normal([16]),))
    fidelity("compute-bound: matmul 384", matmul384, (tf.random.normal([384, 384]),))
    overhead()


if __name__ == "__main__":
    main()
