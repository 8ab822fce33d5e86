# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/intro.md ("Python semantics" and "TensorFlow Eager semantics" sections)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, turned the >>> lines into print() calls, caught the documented error and printed its type
import tensorflow as tf


def f(x):
  if x > 0:
    return x
  return -x

converted_f = tf.autograph.to_graph(f)

print('f(3) =', f(3))
print('converted_f(3) =', converted_f(3))

# Use tf.function to run code as a TensorFlow Graph.
unconverted_graph_f = tf.function(f, autograph=False)
graph_f = tf.function(f, autograph=True)

print('f(tf.constant(3)) =', f(tf.constant(3)).numpy())
try:
  unconverted_graph_f(tf.constant(3))    # Error - not legal Graph code
except Exception as e:  # pylint: disable=broad-except
  print('unconverted_graph_f raised:', type(e).__name__,
        '(TypeError subclass: %s)' % isinstance(e, TypeError))
print('graph_f(tf.constant(3)) =', graph_f(tf.constant(3)).numpy())
print('graph_f(tf.constant(-4)) =', graph_f(tf.constant(-4)).numpy())
