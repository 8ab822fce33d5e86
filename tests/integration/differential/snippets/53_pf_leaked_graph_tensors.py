# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testSymbolicTensorIllegalCaptureCallTimeError, testSymbolicTensorIllegalCaptureTraceTimeError, testErrorMessageWhenGraphTensorIsPassedToEager)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim; replaced assertRaisesRegex with try/except printing the exception type and whether 'out of scope' is in the message (the test's file-name part of the regex is dropped)
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.framework import ops
from tensorflow.python.ops import array_ops
from tensorflow.python.ops import math_ops


def report(name, fn, *args):
  try:
    fn(*args)
    print(name, 'no error')
  except Exception as e:  # pylint: disable=broad-except
    print(name, 'raised', type(e).__name__, '| out of scope:', 'out of scope' in str(e))


x = None

@polymorphic_function.function
def f1(a):
  global x
  x = a
  return a

@polymorphic_function.function
def f2(b):
  return b + x

f1(constant_op.constant(1))
report('call-time capture of a leaked tensor:', f2, constant_op.constant(2))


@polymorphic_function.function
def f(inputs):
  num_steps, _ = inputs.shape[:2]
  outputs = []
  for t in math_ops.range(num_steps):
    outputs.append(inputs[t])
  return outputs

report('list append inside a tf.range loop:', f, array_ops.zeros(shape=(8, 42, 3)))


@polymorphic_function.function
def failing_function():
  a = constant_op.constant(1.)

  with ops.init_scope():
    _ = a + a

report('graph tensor used under init_scope:', failing_function)
