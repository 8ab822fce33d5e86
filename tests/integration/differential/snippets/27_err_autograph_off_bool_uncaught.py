# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/common_errors.md ("OperatorNotAllowedInGraphError: using a `tf.Tensor` as a Python `bool`" section, "When AutoGraph is off")
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a @tf.function(autograph=False) using a tensor as an `if` condition, and a call; the exception is left uncaught on purpose (exit code 1)
import tensorflow as tf


@tf.function(autograph=False)
def f(x):
  if x > 0:
    return x
  return -x


print('eager python function:', f.python_function(tf.constant(2)).numpy())
print('calling the graph function with autograph=False')
f(tf.constant(2))
print('not reached')
