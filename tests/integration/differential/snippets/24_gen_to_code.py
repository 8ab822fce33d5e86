# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/generated_code.md ("AutoGraph generates normal Python code" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, gave the doc's `def f(a): ...` a body, printed tf.autograph.to_code for the function and for a tf.function's python_function (instead of the temporary source file name)
import tensorflow as tf


def f(a):
  if a > 0:
    a = a * 2
  while a < 10:
    a = a + 3
  return a


converted_f = tf.autograph.to_graph(f)
print('converted result:', converted_f(tf.constant(1)).numpy())
print(tf.autograph.to_code(f))


@tf.function
def g(a):
  return a and not a or a


print(tf.autograph.to_code(g.python_function))
