# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/intro.md ("Subset of Eager" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, printed f(3) (the doc claims [1, 2, 3]), ran converted_f(3) in try/except printing the outcome
import tensorflow as tf


def f(n):
  l = []
  for i in tf.range(n):
    l.append(i)
  return l

converted_f = tf.autograph.to_graph(f)

print('f(3) =', [int(t) for t in f(3)])
try:
  result = converted_f(3)                     # Not valid in AutoGraph (by default)
  print('converted_f(3) returned a', type(result).__name__, 'of length', len(result))
except Exception as e:  # pylint: disable=broad-except
  print('converted_f(3) raised:', type(e).__name__)
try:
  print(tf.function(f)(3))
except Exception as e:  # pylint: disable=broad-except
  print('tf.function(f)(3) raised:', type(e).__name__)
