# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/datasets_test.py
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim (a subset); replaced assertFunctionMatchesEager with prints of eager and tf.function results on tf.data.Dataset.range(7), and assertRaises/assertRaisesRegex with try/except printing the exception type
import tensorflow as tf


def dataset_single_var_loop(ds):
  s = tf.constant(0, dtype=tf.int64)
  for e in ds:
    s = s * 10 + e
  return s


def dataset_two_vars_loop(ds):
  s = tf.constant(0, dtype=tf.int64)
  p = tf.constant(1, dtype=tf.int64)
  for e in ds:
    s += e
    p *= e
  return s, p


def dataset_loop_with_break(ds):
  s = tf.constant(0, dtype=tf.int64)
  for e in ds:
    s = s * 10 + e
    if s > 100:
      break
  return s


def iterator_resuming_loop(ds):
  s = tf.constant(0, dtype=tf.int64)
  itr = iter(ds)
  for e in itr:
    s = s * 10 + e
    break
  for e in itr:
    s = s * 10 + e
    break
  for e in itr:
    s = s * 10 + e
  return s


def dataset_loop_with_return(ds):
  y = tf.constant(0, dtype=tf.int64)
  for e in ds:
    y = e
    return y
  return y


def iterator_next_multiple_calls(ds):
  itr = iter(ds)
  return 10 * next(itr) + next(itr)


def iterator_next_in_loop(ds, n):
  itr = iter(ds)
  s = tf.constant(0, dtype=tf.int64)
  for _ in range(n):
    s = s * 10 + next(itr)
  return s


def iterator_next_with_catching_stop_iteration(ds, cond):
  # This is the only instance when the use of TF iterators does not work as
  # intended. In graph mode, the `except` below will never catch, and the
  # tf.function will raise the error instead.
  # TODO(b/132311724): The error should be friendlier here.
  # Note: b/132298783 covers actually supporting this pattern.
  itr = iter(ds)
  try:
    while cond:
      next(itr)
  except StopIteration:
    pass


ds = tf.data.Dataset.range(7)


def show(value):
  return tf.nest.map_structure(
      lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, value)


for f, args in ((dataset_single_var_loop, (ds,)), (dataset_two_vars_loop, (ds,)),
                (dataset_loop_with_break, (ds,)), (iterator_resuming_loop, (ds,)),
                (iterator_next_multiple_calls, (ds,)), (iterator_next_in_loop, (ds, 7))):
  print(f.__name__, 'eager:', show(f(*args)), 'graph:', show(tf.function(f)(*args)))

print('dataset_loop_with_return eager:', show(dataset_loop_with_return(ds)))
try:
  tf.function(dataset_loop_with_return)(ds)
except NotImplementedError as e:
  print('dataset_loop_with_return graph raised NotImplementedError:',
        'a return statement cannot be placed inside this TensorFlow loop' in str(e))

iterator_next_with_catching_stop_iteration(ds, tf.constant(True))
print('iterator_next_with_catching_stop_iteration eager: StopIteration caught')
try:
  tf.function(iterator_next_with_catching_stop_iteration)(ds, tf.constant(True))
except tf.errors.OutOfRangeError:
  print('iterator_next_with_catching_stop_iteration graph raised OutOfRangeError')
