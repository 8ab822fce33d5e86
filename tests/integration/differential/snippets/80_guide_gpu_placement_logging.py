# origin: tensorflow/docs site/en/guide/gpu.ipynb ("Logging device placement", "Manual device placement"), and tensorflow/tensorflow tensorflow/python/framework/config.py (docstrings of tf.config.set_soft_device_placement and tf.debugging.set_log_device_placement)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: the guide's matmul with placement logging, run eagerly and in a tf.function; soft
#   placement on and off around an op pinned to a GPU that this machine does not have
import tensorflow as tf

tf.config.set_soft_device_placement(True)
tf.debugging.set_log_device_placement(True)
print("soft:", tf.config.get_soft_device_placement())

a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
c = tf.matmul(a, b)
print(c)


@tf.function
def product(x, y):
    return tf.matmul(x, y)


print(product(a, b))
with tf.device("/GPU:0"):
    d = tf.matmul(a, b)
print("soft placement put it on", d.device.split("/")[-1])

tf.debugging.set_log_device_placement(False)
tf.config.set_soft_device_placement(False)
print("soft:", tf.config.get_soft_device_placement())
try:
    with tf.device("/GPU:0"):
        tf.matmul(a, b)
except (RuntimeError, tf.errors.InvalidArgumentError) as e:
    print(type(e).__name__)
