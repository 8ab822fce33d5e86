# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testRuntimeErrorNotSticky, testOpExpandErrorMessage, testNoHash, testWeakrefInputsRejected)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim; replaced assertRaises/assertRaisesRegex with try/except printing the exception type and whether the test's regex matches
import re
import weakref

import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.framework import dtypes
from tensorflow.python.framework import errors
from tensorflow.python.ops import array_ops
from tensorflow.python.ops import control_flow_assert
from tensorflow.python.ops import math_ops
from tensorflow.python.ops import script_ops


@polymorphic_function.function
def fail(i):
  control_flow_assert.Assert(math_ops.equal(i, 0), ['ick'])

fail(constant_op.constant(0))  # OK
print('fail(0): ok')
try:
  fail(constant_op.constant(1))  # InvalidArgument: "ick"
except errors.InvalidArgumentError:
  print('fail(1): InvalidArgumentError')
fail(constant_op.constant(0))  # OK
print('fail(0) again: ok')


@polymorphic_function.function
def test_fn():
  if array_ops.constant(False):
    return array_ops.constant(1)
  else:
    return script_ops.eager_py_func(
        func=lambda: array_ops.constant([2.]), inp=(), Tout=dtypes.int32)

error_pattern = re.compile(r'Graph execution error.*test_fn', re.DOTALL)
try:
  test_fn()
except errors.InvalidArgumentError as e:
  print('py_func dtype mismatch: InvalidArgumentError | regex matches:',
        error_pattern.search(str(e)) is not None)


@polymorphic_function.function()
def f(_):
  return 1.0

try:
  f(set([]))
except TypeError as e:
  print('set argument: TypeError | regex matches:',
        re.search(r'Could not generate a generic TraceType', str(e)) is not None)


@polymorphic_function.function
def g(x):
  return x

class Dummy:
  pass

o = Dummy()
wr = weakref.ref(o)

try:
  g(wr)
  print('weakref argument: no error')
except TypeError as e:
  print('weakref argument: TypeError | regex matches:', re.search('weakref', str(e)) is not None)
