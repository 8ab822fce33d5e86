"""Inputs a person can type in one line, through the real sandbox: a small Keras 3 classifier's
train step (Dense layers, SparseCategoricalCrossentropy, int labels) runs OK on the first Run from
`float32[32,4], int32[32] in [0, 3)` and from `*make_batch(32)` defined in the pasted code, where
plain `int32[32]` (values in [-5, 10)) fails on a negative label."""

from __future__ import annotations

import dataclasses

import pytest
from sandbox_support import SETTINGS

from playground.contract.job import Job
from playground.sandbox import WorkerPool

CLASSIFIER = """import keras
import tensorflow as tf

model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)]
)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.SGD(0.1)


def make_batch(n):
    features = tf.random.stateless_normal([n, 4], seed=[1, 2])
    labels = tf.random.stateless_uniform([n], seed=[3, 4], minval=0, maxval=3, dtype=tf.int32)
    return features, labels


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
"""


@pytest.fixture(scope="module")
def keras_pool():
    """One worker, with the CPU time a Keras import and a first train step take on 2 cores."""
    with WorkerPool(dataclasses.replace(SETTINGS, pool_size=1, cpu_s=60, timeout_s=120.0)) as pool:
        assert pool.wait_ready(), "the sandbox pool did not warm up"
        yield pool


@pytest.mark.parametrize("plan", ["float32[32,4], int32[32] in [0, 3)", "*make_batch(32)"])
def test_a_keras_train_step_runs_on_the_first_run(keras_pool, plan: str) -> None:
    report = keras_pool.submit(Job(source=CLASSIFIER, function="train_step", calls=(plan, plan)))
    assert (report.status, report.error) == ("ok", None), report.message
    first, second = report.functions[0].calls
    assert first.error is None and second.error is None
    assert first.output.startswith("float32[] ") and float(first.output.split()[-1]) > 0  # a loss
    assert first.args == plan and not second.retraced


def test_unbounded_int_labels_are_what_failed_before(keras_pool) -> None:
    """The bounds earn their keep: int32[32]'s default values include negative labels."""
    report = keras_pool.submit(
        Job(source=CLASSIFIER, function="train_step", calls=("float32[32,4], int32[32]",))
    )
    (call,) = report.functions[0].calls
    assert call.error is not None and "Received a label value of -" in call.error.message
