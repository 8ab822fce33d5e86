# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (test_experimental_get_tracing_count_function, test_experimental_get_tracing_count_method)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim and turned the assertAllEqual checks into prints of the values
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op

print('--- function')


@polymorphic_function.function
def double(a):
  return a + a

double(constant_op.constant(1))
double(constant_op.constant(2))
print('tracing count after int32 calls:', double.experimental_get_tracing_count())
double(constant_op.constant('a'))
print('tracing count after a string call:', double.experimental_get_tracing_count())

print('--- method on two instances')


class TestClass():

  @polymorphic_function.function
  def testDouble(self, a):
    return a + a

obj1 = TestClass()
obj1.testDouble(constant_op.constant(1))
obj1.testDouble(constant_op.constant(2))
obj1.testDouble(constant_op.constant(1.1))
print('obj1:', obj1.testDouble.experimental_get_tracing_count())
obj2 = TestClass()
obj2.testDouble(constant_op.constant(1))
obj2.testDouble(constant_op.constant(1.1))
obj2.testDouble(constant_op.constant('a'))
print('obj2:', obj2.testDouble.experimental_get_tracing_count())
print('obj1 again:', obj1.testDouble.experimental_get_tracing_count())
