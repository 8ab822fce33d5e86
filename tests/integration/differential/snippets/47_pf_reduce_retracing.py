# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testInputShapeRelaxationOnInstanceMethod, testNestedShapeFunctionRelaxation, testVariablesAreTracked)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim and turned the assertions into prints of the observed values
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.ops import array_ops
from tensorflow.python.ops import resource_variable_ops

# Test that reduce_retracing is passed during
# instance method bounding.
unknown_dim = [False]

class Foo:

  @polymorphic_function.function(reduce_retracing=True)
  def func(self, a):
    if a._shape_tuple()[0] is None:
      unknown_dim[0] = True
    return a + 1

foo = Foo()
foo.func(constant_op.constant([]))
print('after shape [0]:', unknown_dim[0])

foo.func(constant_op.constant([1.0]))
print('after shape [1]:', unknown_dim[0])

foo.func(constant_op.constant([1.0, 2.0]))
print('after shape [2]:', unknown_dim[0])
print('tracing count:', foo.func.experimental_get_tracing_count())

traced_shape = None
# The inner function will go through shape relaxation because the shapes it
# receives will be [1], [2], [3], ...
@polymorphic_function.function(reduce_retracing=True)
def bar(x_shape):
  global traced_shape
  traced_shape = x_shape._shape_tuple()
  return x_shape

# The outer function will not go through shape relaxation because the shapes
# it receives will be [1], [[1]], [[[1]]], ...
@polymorphic_function.function(reduce_retracing=True)
def foo2(ones):
  return bar(array_ops.shape(ones))

print(foo2(array_ops.ones([1])).numpy(), traced_shape)

for rank in range(2, 6):
  x_shape = foo2(array_ops.ones([1] * rank)).numpy()
  print(x_shape, traced_shape)

for reduce_retracing in (True, False):
  v = resource_variable_ops.ResourceVariable(1.0)

  def foo3(x):
    return v * x

  defined = polymorphic_function.function(
      foo3, reduce_retracing=reduce_retracing)

  x = constant_op.constant([1.0])
  print('reduce_retracing=%s:' % reduce_retracing, defined(x).numpy(), end=' ')
  v.assign(2.)

  x = constant_op.constant([1.0, 2.0])
  print(defined(x).numpy(), 'traces:', defined.experimental_get_tracing_count())
