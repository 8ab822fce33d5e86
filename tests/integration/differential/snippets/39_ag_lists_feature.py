# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/basic_list_test.py (element_access, element_update, simple_fill, nested_fill, read_write_loop, simple_empty)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim; ran them through tf.function with experimental_autograph_options=Feature.LISTS as the test's setUp does and printed eager and graph results (or the graph error type) instead of assertFunctionMatchesEager; the documented ValueError cases are caught; `ag` is rebuilt from autograph.lang because tensorflow.python.autograph no longer exports set_element_type/stack
import tensorflow as tf

import types

from tensorflow.python.autograph.lang import directives
from tensorflow.python.autograph.lang import special_functions

# The test's `from tensorflow.python import autograph as ag` no longer exports
# these two names in TF 2.21; they live in autograph.lang.
ag = types.SimpleNamespace(set_element_type=directives.set_element_type,
                           stack=special_functions.stack)


def type_not_annotated(n):
  l = []
  # TODO(mdan): Here, we ought to infer the dtype and shape when i is staged.
  for i in range(n):
    l.append(i)
  return ag.stack(l, strict=False)


def element_access():
  l = []
  l.append(1)
  l.append(2)
  l.append(3)
  ag.set_element_type(l, tf.int32)
  return 2 * l[1]


def element_update():
  l = []
  l.append(1)
  l.append(2)
  l.append(3)
  ag.set_element_type(l, tf.int32)
  l[1] = 5
  return ag.stack(l, strict=False)


def simple_fill(n):
  l = []
  ag.set_element_type(l, tf.int32)
  for i in range(n):
    l.append(i)
  return ag.stack(l, strict=False)


def nested_fill(m, n):
  mat = []
  ag.set_element_type(mat, tf.int32)
  for _ in range(m):
    l = []
    ag.set_element_type(l, tf.int32)
    for j in range(n):
      l.append(j)
    mat.append(ag.stack(l, strict=False))
  return ag.stack(mat, strict=False)


def read_write_loop(n):
  l = []
  l.append(1)
  l.append(1)
  ag.set_element_type(l, tf.int32)
  for i in range(2, n):
    l.append(l[i-1] + l[i-2])
    l[i-2] = -l[i-2]
  return ag.stack(l, strict=False)


def simple_empty(n):
  l = []
  l.append(1)
  l.append(2)
  l.append(3)
  l.append(4)
  ag.set_element_type(l, tf.int32, ())
  s = 0
  for _ in range(n):
    s += l.pop()
  return ag.stack(l, strict=False), s


def function(f):
  return tf.function(
      f, experimental_autograph_options=tf.autograph.experimental.Feature.LISTS)


def show(value):
  return tf.nest.map_structure(
      lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, value)


def check(f, *args):
  print(f.__name__, 'eager:', show(f(*args)))
  try:
    print(f.__name__, 'graph:', show(function(f)(*args)))
  except Exception as e:  # pylint: disable=broad-except
    print(f.__name__, 'graph raised', type(e).__name__)


check(element_access)
check(element_update)
check(simple_fill, tf.constant(5))
check(nested_fill, tf.constant(3), tf.constant(2))
check(read_write_loop, tf.constant(5))
check(simple_empty, tf.constant(2))
for f, args in ((type_not_annotated, (3,)), (simple_fill, (0,))):
  try:
    function(f)(*args)
    print(f.__name__, args, 'no error')
  except ValueError as e:
    print(f.__name__, args, 'raised ValueError')
