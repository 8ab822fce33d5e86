# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/error_handling.md ("AutoGraph conversion exceptions" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and the doc's f() call, twice
import tensorflow as tf


def example_generator():
  yield 1

@tf.function
def f():
  for i in example_generator():
    print(i)

f()
f()
