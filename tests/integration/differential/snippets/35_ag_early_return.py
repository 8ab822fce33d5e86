# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/early_return_test.py (return_with_default, return_possibly_undefined, nested_ifs, return_in_try_with_finally, return_in_finally, raise_during_return_caught)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim; replaced assertFunctionMatchesEager/assertRaisesRegex with prints of eager and tf.function results, or of the exception type
import tensorflow as tf


def return_with_default(x):
  if x > 0:
    tf.print('x', x)
    return x
  return x * x


def return_possibly_undefined(x):
  if x > 0:
    if x < 5:
      return x
  else:
    return x * x * x


def nested_ifs(x):
  if x > 0:
    if x < 5:
      return x
    else:
      return x * x
  else:
    return x * x * x


def return_in_try_with_finally(x):
  try:
    if x > 0:
      return 1
    else:
      return 0
  finally:
    x = x + 1


def return_in_finally(x):
  try:
    return 2
  finally:
    if x > 0:
      return 1  # pylint: disable=lost-exception
    else:
      return 0  # pylint: disable=lost-exception


def _raising_helper():
  raise ValueError()


def raise_during_return_caught():
  try:
    return _raising_helper()
  except ValueError:
    pass
  return 1


def show(value):
  return value.numpy() if hasattr(value, 'numpy') else value


def check(f, *args):
  print(f.__name__, args[:1], 'eager:', show(f(*args)),
        'graph:', show(tf.function(f)(*args)))


check(return_with_default, tf.constant(3))
check(return_with_default, tf.constant(-3))
for n in (0, 3, 5):
  check(return_possibly_undefined, n)
for n in (-1, 3, 6):
  check(nested_ifs, tf.constant(n))
check(return_in_try_with_finally, tf.constant(1))
check(return_in_finally, tf.constant(0))
check(raise_during_return_caught)
try:
  tf.function(return_possibly_undefined)(tf.constant(3))
except ValueError as e:
  print('return_possibly_undefined with a tensor raised ValueError:',
        'else branch must also have a return' in str(e))
