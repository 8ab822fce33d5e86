# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/control_flow.md ("Analogy with compile-time constants and code optimization" section, tf.py_function caution)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, ran the fragment once eagerly and once inside a @tf.function, printed n afterwards
import tensorflow as tf

n = [10]
def f():
  n[0] = 20
  return 0


def fragment():
  tf.py_function(f, (), (tf.int32,))
  if tf.equal(n[0], 10):
    tf.print('n is 10')


print('--- eager')
fragment()
print('n after eager run:', n)

n[0] = 10
print('--- tf.function')
tf.function(fragment)()
print('n after tf.function run:', n)
