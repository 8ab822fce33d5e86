# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/debugging.md ("Using `print` and `tf.print`" section, all three examples)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, renamed the three doc functions f to f1/f2/f3 so they can live in one file, added the doc's calls
import tensorflow as tf


@tf.function
def f1(a):
  print(a)
  if a > 0:
    a = -a


@tf.function
def f2(a):
  print(a)
  tf.print(a)


@tf.function
def f3(a):
  tf.print('At graph execution:', a)
  print('At graph construction:', a)


print('--- print only')
f1(tf.constant(1))
f1(1)
print('--- print followed by tf.print')
f2(1)
f2(tf.constant(1))
print('--- tf.print followed by print, called twice')
f3(tf.constant(1))
f3(tf.constant(1))
