# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Source code of lambda functions" section, "Changes in TF 2.4")
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, converted both lambdas with tf.autograph.to_graph inside try/except, and called them through tf.function with a print of the result
import tensorflow as tf

l = lambda x: lambda x: x + 1
l2 = lambda outer_x: lambda inner_x: inner_x + 1

for name, fn in (('same arg names', l), ('distinct arg names', l2)):
  try:
    tf.autograph.to_graph(fn)
    print(name, ': to_graph ok')
  except Exception as e:  # pylint: disable=broad-except
    print(name, ': to_graph raised', type(e).__name__)
  print(name, ': tf.function result',
        tf.function(lambda t: fn(t)(t))(tf.constant(1)).numpy())
