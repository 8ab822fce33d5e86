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

import tensorflow as tf

from playground.engine import device, timing


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


def fidelity(name, fn, args, rounds=3):
    """Alternates lab and timeit rounds, so machine drift (a shared 2-core VM) hits both alike;
    compares the medians of the per-round ratios."""
    graph_fn = tf.function(fn)
    graph_fn(*args)
    labs, plains = [], []
    for _ in range(rounds):
        measured = timing.measure(fn, {}, list(args), {}, budget_s=2.0, device="/CPU:0", xla=False)
        labs.append(measured.eager.median_s / measured.graph.median_s)
        plains.append(timeit_per_call(fn, args, 1.0) / timeit_per_call(graph_fn, args, 1.0))
    lab, plain = sorted(labs)[rounds // 2], sorted(plains)[rounds // 2]
    gap = abs(lab - plain) / plain
    print(
        f"{name:28} lab eager/graph {lab:7.2f}x   timeit {plain:7.2f}x   "
        f"gap {gap * 100:5.1f}%  {'OK' if gap <= 0.25 else 'OVER 25%'}"
    )
    print(
        f"{'':28} rounds: lab {', '.join(f'{r:.2f}' for r in labs)}; "
        f"timeit {', '.join(f'{r:.2f}' for r in plains)}"
    )
    return gap


def overhead(rounds=5):
    """Harness cost per call: the lab's median against timeit's, alternating rounds."""
    x = tf.random.normal([120, 120])  # about 100 us per call on this machine
    fn = tf.function(lambda a: tf.matmul(a, a))
    fn(x)
    extras, labs, plains = [], [], []
    for _ in range(rounds):
        plain = timeit_per_call(fn, (x,), 0.5)
        mode, _, _ = timing.time_mode(lambda: fn(x), 0.5, lambda: None)
        labs.append(mode.median_s)
        plains.append(plain)
        extras.append((mode.median_s - plain) / plain)
    extra = sorted(extras)[rounds // 2]
    print(
        f"{'harness overhead (small fn)':28} lab {sorted(labs)[rounds // 2] * 1e6:7.1f} us   "
        f"timeit {sorted(plains)[rounds // 2] * 1e6:7.1f} us   overhead {extra * 100:+5.1f}%  "
        f"{'OK' if extra < 0.05 else 'OVER 5%'}"
    )
    print(f"{'':28} rounds: {', '.join(f'{e * 100:+.1f}%' for e in extras)}")
    return extra


def main():
    print(
        f"bench_timing  {datetime.date.today()}  {device.cpu_model()}  {os.cpu_count()} cores  "
        f"TF {tf.__version__}  Python {platform.python_version()}"
    )
    fidelity("overhead-bound: 40 ops [16]", chain40, (tf.random.normal([16]),))
    fidelity("compute-bound: matmul 384", matmul384, (tf.random.normal([384, 384]),))
    overhead()


if __name__ == "__main__":
    main()
