# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testPythonCallWithSideEffects, testFunctionModifiesInputList, testFunctionWithNestedFunctionCallAndSideEffects)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim; replaced assertAllEqual with prints and assertRaisesRegex with try/except printing the exception type and whether the test's regex matches
import re

import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.ops import variables

state = []

@polymorphic_function.function
def side_effecting_function():
  state.append(0)

side_effecting_function()
print('after first call:', state)

# The second invocation should call the graph function, which shouldn't
# trigger the list append.
side_effecting_function()
print('after second call:', state)

# Whereas calling the python function directly should create a side-effect.
side_effecting_function.python_function()
print('after python_function():', state)


def get_list():
  return [constant_op.constant(0.), constant_op.constant(1.)]

expected_msg = '.*() should not modify'

try:

  @polymorphic_function.function
  def append(l):
    l.append(constant_op.constant(0.))

  append(get_list())
  print('append: no error')
except ValueError as e:
  print('append raised ValueError | regex matches:', re.search(expected_msg, str(e)) is not None)

try:

  @polymorphic_function.function
  def pop(l):
    l.pop()

  pop(get_list())
  print('pop: no error')
except ValueError as e:
  print('pop raised ValueError | regex matches:', re.search(expected_msg, str(e)) is not None)

v1 = variables.Variable(1.0)
v2 = variables.Variable(1.0)

@polymorphic_function.function
def add_one(a):
  a.assign_add(1.0)

# Grappler will inline calls to `add_one` into the function body, we check
# that all side-effects were executed.
@polymorphic_function.function
def side_effecting_function2(a, b):
  add_one(a)
  add_one(b)
  return a + b

result = side_effecting_function2(v1, v2)
print('nested function side effects:', result.numpy(), v1.numpy(), v2.numpy())
