# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Consistency of shape" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a seed, wrapped the AutoGraph fragment in a @tf.function and added a call; the exception is left uncaught on purpose (exit code 1)
import tensorflow as tf

tf.random.set_seed(4)


@tf.function
def f():
  x = tf.constant(1,)
  while tf.random.uniform(()) > 0.5:
    x = tf.constant((1, 2, 3))  # Error -- inconsistent shapes: (), (3,)
  return x


print('calling f()')
f()
print('not reached')
