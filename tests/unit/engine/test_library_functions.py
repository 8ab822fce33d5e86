"""Script mode reports every tf.function a program makes, the ones libraries make for it too
(Keras's train and predict steps, tf.data's map functions, a restored SavedModel's), each with
its maker, and never loses a report when a call it does not record fails. Real TF and Keras,
in process; each trace count is checked against TF's own object, read by the script itself."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tensorflow")

from playground.contract.job import FunctionReport, Job, Report
from playground.engine.pipeline import analyze

# Prints {name: experimental_get_tracing_count()} of every tf.function TF holds, by TF's own
# objects (Keras 3's model.train_function is a plain function around one).
TF_COUNTS = """
import gc, json
print(json.dumps({f._name: f.experimental_get_tracing_count() for f in gc.get_objects()
                  if isinstance(f, tf.types.experimental.PolymorphicFunction)
                  and f._name in ("multi_step_on_iterator", "one_step_on_data_distributed")}))
"""


def script(source: str) -> Report:
    return analyze(Job(source=source, function=None, filename="user.py"))


def library(report: Report, name: str) -> FunctionReport:
    return next(f for f in report.library_functions if f.name == name)


def tf_counts(report: Report) -> dict[str, int]:
    return json.loads(report.stdout.strip().splitlines()[-1])


def test_a_failure_inside_dataset_map_keeps_the_report():
    """A user tf.function traced by Dataset.map raises: the call is not one the engine records,
    and the script's output, its error and every other function still come back."""
    report = script("""import tensorflow as tf

@tf.function
def double(x):
    return x * 2

@tf.function
def bad(x):
    return tf.py_function(lambda v: v + 1, [x], tf.int64) + tf.constant("a")

print("before", int(double(tf.constant(3))))
tf.data.Dataset.range(4).map(bad)
""")
    assert report.status == "error"
    assert report.error is not None and report.error.type == "TypeError" and report.error.line == 12
    assert "'AddV2' Op has type string" in report.error.message
    assert report.stdout == "before 6\n"
    assert [(f.name, len(f.calls), f.tracing_count) for f in report.functions] == [
        ("double", 1, 1),
        ("bad", 0, 0),
    ]
    made = library(report, "Dataset_map_bad")
    assert (made.maker, made.made_at) == ("tf.data: DatasetV2.map", 12)


def test_keras_fit_with_varying_batches_reports_its_train_function_and_why():
    report = script(
        """import numpy as np
import tensorflow as tf
import keras

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
for n in (32, 40):  # 40 rows leave a last batch of 8
    model.fit(np.ones((n, 3)), np.ones((n, 1)), batch_size=16, epochs=1, verbose=0)
for n in (1, 2, 3):
    model.predict(np.ones((n, 3)), verbose=0)
"""
        + TF_COUNTS
    )
    assert report.status == "ok", report.error
    assert report.functions == []  # nothing of the user's own
    counts = tf_counts(report)
    train = library(report, "multi_step_on_iterator")
    assert train.maker == "keras: TensorFlowTrainer.make_train_function"
    assert train.tracing_count == counts["multi_step_on_iterator"] == 2
    assert train.made_at == 8  # the user's line that called fit
    assert [c.line for c in train.calls] == [8, 8]  # only the calls that traced are listed
    assert len(train.calls) + train.calls_not_listed == 2 + 3  # 2 steps, then 3
    assert train.calls[0].reason == "first call"
    assert "iterator[0]: shape (16, 3) -> (None, 3)" in (train.calls[1].reason or "")
    predict = library(report, "one_step_on_data_distributed")
    assert predict.maker == "keras: TensorFlowTrainer.make_predict_function"
    assert predict.tracing_count == counts["one_step_on_data_distributed"] == 2
    assert (
        predict.calls[1].reason == "data[0]: shape (1, 3) -> (2, 3) (reduce_retracing traced it as (None, 3))"
    )
    assert predict.calls_not_listed == 1  # the third size fits the relaxed trace


def test_a_restored_savedmodels_functions_are_reported_and_their_failure_kept(tmp_path):
    report = script(f"""import tensorflow as tf

class Scale(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return x * 2.0

tf.saved_model.save(Scale(), {str(tmp_path)!r})
restored = tf.saved_model.load({str(tmp_path)!r})
print(restored(tf.constant([1.0, 2.0])).numpy())
restored(tf.constant([[1.0]]))  # no signature takes a matrix
""")
    assert report.status == "error"
    assert report.error is not None and report.error.type == "TypeError" and report.error.line == 11
    assert report.stdout == "[2. 4.]\n"
    restored = [f for f in report.library_functions if f.maker == "tf.saved_model.load"]
    assert len(restored) == 1 and restored[0].made_at == 9
    failed = [c for c in restored[0].calls if c.error]
    assert len(failed) == 1 and failed[0].line == 11 and not failed[0].handled


def test_a_function_called_from_a_keras_callback_keeps_its_calls_when_the_callback_raises():
    report = script("""import numpy as np
import tensorflow as tf
import keras

@tf.function
def norm(w):
    return tf.norm(w)

class Watch(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("norm", round(float(norm(self.model.weights[0])), 3) >= 0)
        if epoch == 1:
            raise RuntimeError("stop at epoch 1")

model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=3, verbose=0, callbacks=[Watch()])
""")
    assert report.status == "error"
    assert report.error is not None and report.error.type == "RuntimeError" and report.error.line == 13
    assert report.stdout == "norm True\nnorm True\n"
    assert [(f.name, len(f.calls), f.tracing_count) for f in report.functions] == [("norm", 2, 1)]
    assert [c.line for c in report.functions[0].calls] == [11, 11]
    assert library(report, "multi_step_on_iterator").made_at == 17
