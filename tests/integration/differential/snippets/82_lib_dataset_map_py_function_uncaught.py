# origin: tensorflow/docs site/en/guide/data.ipynb ("Applying arbitrary Python logic": tf.py_function inside Dataset.map)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: the guide's py_function wrapped in a tf.function that Dataset.map traces; a string added to its int64 result fails the trace, left uncaught on purpose (exit code 1)
import tensorflow as tf


@tf.function
def scale(x):
    return x * 10


def upper_bound(x):
    return x + 1


@tf.function
def bounded(x):
    y = tf.py_function(upper_bound, [x], tf.int64)
    return y + tf.constant("a")  # int64 + string: fails while Dataset.map traces it


print("eager first:", int(scale(tf.constant(3, tf.int64))))
print(list(tf.data.Dataset.range(3).map(scale).as_numpy_iterator()))
tf.data.Dataset.range(3).map(bounded)
print("not reached")
