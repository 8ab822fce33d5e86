# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/loop_basic_test.py (while_one_var, while_two_vars, for_two_vars, while_creates_var, successive_for_loops, nested_while_loops, nested_for_loops)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim; replaced the parameterized assertFunctionMatchesEager checks with prints of the eager and tf.function results for a few of the test's inputs
import tensorflow as tf


def while_one_var(n):
  i = 0
  while i < n:
    i = i * 10 + 1
  return i


def while_two_vars(n):
  s = 0
  i = 0
  while i < n:
    s = s * 10 + i
    i += 1
  return s


def for_two_vars(l):
  s = 0
  for i in l:
    s = s * 10 + i
  return s


def while_creates_var(n):
  i = 0
  while i < n:
    i = n + 1
    j = i + 1
  return i, j


def successive_for_loops(l1, l2):
  s = 0
  for i in l1:
    s = s * 10 + i
  for i in l2:
    s = s * 10 + i
  return s


def nested_while_loops(n1, n2):
  i = 0
  l = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=())
  while i < n1:
    j = 0
    s = 0
    while j < n2:
      s = s * 10 + i * j
      j += 1
    l = l.write(i, s)
    i += 1
  return l.stack()


def nested_for_loops(m):
  l = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=())
  for i in m:
    s = 0
    for j in i:
      s = s * 10 + j
    l = l.write(l.size(), s)
  return l.stack()


def _int_tensor(x):
  return tf.constant(x, dtype=tf.int32)


def _int_dataset(l):
  return tf.data.Dataset.from_tensor_slices(tf.constant(l, dtype=tf.int32))


def show(value):
  return tf.nest.map_structure(
      lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, value)


def check(f, *args):
  print(f.__name__, 'eager:', show(f(*args)), 'graph:', show(tf.function(f)(*args)))


for n in (0, 2):
  check(while_one_var, n)
  check(while_one_var, _int_tensor(n))
  check(while_two_vars, _int_tensor(n))
for l in ([], [1, 2]):
  check(for_two_vars, l)
  check(for_two_vars, _int_tensor(l))
  check(for_two_vars, _int_dataset(l))
check(while_creates_var, 2)
check(while_creates_var, _int_tensor(2))
check(successive_for_loops, _int_tensor([1, 2]), _int_tensor([3]))
check(nested_while_loops, _int_tensor(2), _int_tensor(3))
check(nested_for_loops, _int_tensor([[1, 2], [3, 4]]))
check(nested_for_loops, tf.ragged.constant([[], [1], [1, 2]], dtype=tf.int32))
