# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/error_handling.md ("TensorFlow execution errors" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a seed; the call is wrapped in try/except printing the error type and whether the message holds 'example error'
import tensorflow as tf

tf.random.set_seed(5)


@tf.function
def my_function():
  tf.Assert(tf.random.uniform(()) > 1.0, ['example error'])


try:
  my_function()
  print('no error')
except tf.errors.InvalidArgumentError as e:
  print('raised:', type(e).__name__)
  print('message holds the assert data:', 'example error' in e.message)
