# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/error_handling.md ("Python execution errors" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a print before the call; the exception is left uncaught on purpose (exit code 1)
import tensorflow as tf


@tf.function
def f():
  tf.constant(1) + tf.constant(1.0)


print('calling f()')
f()
print('not reached')
