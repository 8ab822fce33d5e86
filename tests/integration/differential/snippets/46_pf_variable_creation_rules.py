# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testFailIfVariablesAreCreatedMoreThanOnce, testCorrectVariableCreation, testVariableInitializerNotConstant, testMethod)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim; replaced assertRaises with try/except printing the exception type and assertAllEqual with prints
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.ops import variables


@polymorphic_function.function
def fn(x):
  return variables.Variable(1.0) + x

try:
  fn(1.0)
  print('variable created on every call: no error')
except ValueError as e:
  print('variable created on every call: raised', type(e).__name__)

state = []

@polymorphic_function.function
def fn2(x):
  if not state:
    state.append(variables.Variable(2.0))
  return state[0] * x

print('singleton variable:', fn2(constant_op.constant(1.0)).numpy(),
      fn2(constant_op.constant(3.0)).numpy())

state2 = []

@polymorphic_function.function
def fn3(x):
  if not state2:
    state2.append(variables.Variable(2.0 * x))
  return state2[0] * x

print('initializer depends on the input:', fn3(constant_op.constant(1.0)).numpy(),
      fn3(constant_op.constant(3.0)).numpy())


class MyModel:

  def __init__(self):
    self.var = None

  @polymorphic_function.function
  def apply(self, x):
    if self.var is None:
      self.var = variables.Variable(2.0)
    return self.var * x

m0 = MyModel()
print('m0.apply(3.0):', m0.apply(3.0).numpy())
# Calling twice to exercise that we do not recreate variables.
m0.var.assign(3.0)
print('m0.apply(3.0) after assign(3.0):', m0.apply(3.0).numpy())

m1 = MyModel()
print('m1.apply(3.0):', m1.apply(3.0).numpy())
print('m0 and m1 hold different variables:', m0.var is not m1.var)
