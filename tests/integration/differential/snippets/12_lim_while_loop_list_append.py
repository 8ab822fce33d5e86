# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Modifying Python collections in TensorFlow control flow is not allowed" section, tf.while_loop example)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, printed the eager result, caught the graph-mode error and printed its type
import tensorflow as tf


def fn():
  l = []

  def loop_cond(i):
    return i < 10

  def loop_body(i):
    i = i + 1
    l.append(i)
    return i,

  tf.while_loop(
      cond=loop_cond,
      body=loop_body,
      loop_vars=(0,))

  return l


print('eager:', [int(t) for t in fn()])
try:
  print(tf.function(fn)())  # Error -- illegal tensor capture!
except Exception as e:  # pylint: disable=broad-except
  print('tf.function raised:', type(e).__name__)
