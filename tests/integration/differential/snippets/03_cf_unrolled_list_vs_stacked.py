# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/control_flow.md ("`while` statements" section, list vs tf.stack loops)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped both doc fragments in a @tf.function, added the calls and a print of how many PrintV2 ops each graph holds
import tensorflow as tf


@tf.function
def unrolled():
  l = [tf.constant(1), tf.constant(2), tf.constant(3)]
  for i in l:
    tf.print(i)  # This is unrolled - three `tf.print`s are built in the graph.


@tf.function
def stacked():
  l = [tf.constant(1), tf.constant(2), tf.constant(3)]
  for i in tf.stack(l):
    tf.print(i)  # This runs as a TensorFlow loop.


def count_prints(fn):
  graph = fn.get_concrete_function().graph
  n = sum(1 for op in graph.get_operations() if op.type == 'PrintV2')
  return n


unrolled()
stacked()
print('PrintV2 ops at top level, unrolled:', count_prints(unrolled))
print('PrintV2 ops at top level, stacked:', count_prints(stacked))
