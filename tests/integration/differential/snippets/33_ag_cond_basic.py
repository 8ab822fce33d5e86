# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/cond_basic_test.py (if_else_two_vars, if_creates_var, else_creates_var, if_returns_none, nested_if_temporarily_undefined_return, nested_if_elses)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim; replaced assertFunctionMatchesEager/assertRaisesRegex with prints of the results or of the exception type and whether the test's regex matches
import re

import tensorflow as tf


def if_else_two_vars(n):
  i = 0
  j = 1
  if i < n:
    i += 1
    j *= 10
  else:
    i += 2
    j *= 20
  return i, j


def if_creates_var(c):
  if c:
    i = 1
  return i


def else_creates_var(c):
  if c:
    pass
  else:
    i = 2
  return i


def if_returns_none(c):
  i = 0
  j = 1
  if c:
    i = None
    j = 2
  return i, j


def nested_if_temporarily_undefined_return(c1, c2):
  if c1:
    if c2:
      return 1
  return 2


def nested_if_elses(n1, n2):
  i = 0
  l = 0
  if i < n1:
    j = 0
    s = 0
    if j < n2:
      s = s * 10 + i * j
      j += 1
    else:
      s = s * 11 + i * j
      j += 2
    l = l * 1000 + s
    i += 1
  else:
    j = 0
    s = 0
    if j < n2:
      s = s * 12 + i * j
      j += 3
    else:
      s = s * 13 + i * j
      j += 4
    l = l * 2000 + s
    i += 1
  return l


def show(value):
  return tf.nest.map_structure(
      lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, value)


def run(f, *args):
  try:
    print(f.__name__, args, '->', show(tf.function(f)(*args)))
  except Exception as e:  # pylint: disable=broad-except
    print(f.__name__, args, 'raised', type(e).__name__)
    return e


for n in (0, 1):
  run(if_else_two_vars, n)
  run(if_else_two_vars, tf.constant(n))
run(if_creates_var, True)
run(else_creates_var, False)
run(if_returns_none, True)
run(nested_if_temporarily_undefined_return, True, False)
for n1 in (0, 1):
  for n2 in (0, 1):
    run(nested_if_elses, tf.constant(n1), n2)

for target, c, regex in (
    (if_creates_var, False, "'i' is used before assignment"),
    (if_creates_var, tf.constant(True), "'i' must also be initialized in the else branch"),
    (else_creates_var, tf.constant(True), "'i' must also be initialized in the main branch"),
    (if_returns_none, tf.constant(True), "'i' is None"),
):
  e = run(target, c)
  print('  regex matches:', e is not None and re.search(regex, str(e), re.DOTALL) is not None)
e = run(nested_if_temporarily_undefined_return, tf.constant(True), tf.constant(False))
print('  regex matches:', e is not None and re.search('must also have a return', str(e)) is not None)
