# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/control_flow.md ("`while` statements" section, condition type changing across iterations)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped the doc fragment in a @tf.function and added a call; the exception is left uncaught on purpose (exit code 1)
import tensorflow as tf


@tf.function
def f():
  i = 0
  while i < 10:  # `i < 10` is a Python bool - run as normal while loop
    i = tf.constant(1)  # Error -- `i < 10` would now be a `tf.Tensor`
  return i


print('calling f(); the doc says this generates an error')
f()
print('not reached')
