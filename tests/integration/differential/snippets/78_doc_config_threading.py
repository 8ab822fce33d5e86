# origin: tensorflow/tensorflow tensorflow/python/framework/config.py (docstrings of tf.config.threading.set_inter_op_parallelism_threads, set_intra_op_parallelism_threads and their getters)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: sets both pools on the first lines, as the docstrings say it must happen (before the
#   runtime is initialized), reads them back, then shows that a second change is refused
import tensorflow as tf

tf.config.threading.set_inter_op_parallelism_threads(2)
tf.config.threading.set_intra_op_parallelism_threads(1)
print("inter", tf.config.threading.get_inter_op_parallelism_threads())
print("intra", tf.config.threading.get_intra_op_parallelism_threads())


@tf.function
def total(x):
    return tf.reduce_sum(x * x)


print(total(tf.range(4.0)).numpy())
try:
    tf.config.threading.set_inter_op_parallelism_threads(4)
except RuntimeError as e:
    print("RuntimeError:", e)
print("inter", tf.config.threading.get_inter_op_parallelism_threads())
