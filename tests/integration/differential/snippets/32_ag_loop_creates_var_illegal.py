# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/loop_basic_test.py (test_while_creates_var_illegal, test_for_creates_var_illegal, test_for_else, test_while_else)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim; replaced assertRaisesRegex with try/except printing the exception type and whether the test's regex matches; ran the for/else and while/else cases first with AUTOGRAPH_STRICT_CONVERSION=1 (as the test's base class sets it), then with the default setting
import os
import re

import tensorflow as tf


def while_else(x, y):
  s = 0
  while x > 0:
    x -= 1
    if x > y:
      break
    s += x
  else:
    s = -100
  return s


def for_else(l1, l2):
  s = 0
  for c in l1:
    if c in l2:
      break
    s = s * 10 + c
  else:
    s = -1000
  return s


def while_creates_var(n):
  i = 0
  while i < n:
    i = n + 1
    j = i + 1
  return i, j


def for_creates_var(l):
  for i in l:
    pass
  return i  # pylint:disable=undefined-loop-variable


def expect(exc_type, regex, f, *args):
  try:
    tf.function(f)(*args)
    print(f.__name__, 'no error')
  except Exception as e:  # pylint: disable=broad-except
    print(f.__name__, 'raised', type(e).__name__,
          '| expected type:', isinstance(e, exc_type),
          '| regex matches:', re.search(regex, str(e)) is not None)


expect(UnboundLocalError, 'used before assignment', while_creates_var, 0)
expect(tf.errors.InvalidArgumentError, 'loop must iterate at least once',
       while_creates_var, tf.constant(0))
expect(UnboundLocalError, 'used before assignment', for_creates_var, [])
expect(tf.errors.InvalidArgumentError, 'loop must iterate at least once',
       for_creates_var, tf.constant([]))
print('--- with AUTOGRAPH_STRICT_CONVERSION=1 (set by reference_test_base.py)')
os.environ['AUTOGRAPH_STRICT_CONVERSION'] = '1'
expect(NotImplementedError, 'for/else', for_else, [1, 2], [])
expect(NotImplementedError, 'while/else', while_else, tf.constant(2), tf.constant(0))
print('--- with the default AUTOGRAPH_STRICT_CONVERSION=0')
os.environ['AUTOGRAPH_STRICT_CONVERSION'] = '0'
expect(NotImplementedError, 'for/else', for_else, [1, 2], [])
expect(NotImplementedError, 'while/else', while_else, tf.constant(2), tf.constant(0))
print('plain Python while_else(2, 0):', while_else(2, 0))
print('plain Python for_else([1, 2], []):', for_else([1, 2], []))
