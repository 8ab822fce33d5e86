# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testDefuningInstanceMethod, testDefuningInstanceMethodWithDefaultArgument, testWithExtraWrapper, testConcreteFunctionMethodWithVarargs, testMissingArgsTfFunctionedFunctions)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports and its dummy_tf_decorator helper; kept the function bodies verbatim; replaced the assertions with prints and assertRaisesRegex with try/except printing the exception type and whether the message matches
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.framework import dtypes
from tensorflow.python.framework import tensor as tensor_lib
from tensorflow.python.module import module
from tensorflow.python.ops import math_ops
from tensorflow.python.util import tf_decorator


# This dummy decorator imitates ordinary decorators utilizing tf_decorator.
def dummy_tf_decorator(method):

  def wrapper(*args, **kwargs):
    return method(*args, **kwargs)

  return tf_decorator.make_decorator(method, wrapper)


integer = constant_op.constant(2, dtypes.int64)

class Foo:

  def one(self, tensor):
    return tensor

  @polymorphic_function.function
  def two(self, tensor, other=integer):
    return self.one(tensor), other

foo = Foo()
t = constant_op.constant(1.0)
one, two = foo.two(t)
print('instance method:', one.numpy(), two.numpy(), two.dtype.name)


class Foo2:

  @polymorphic_function.function
  def func(self, other=integer):
    return other

print('default argument:', Foo2().func().numpy())


class Foo3(module.Module):

  def __init__(self):
    super().__init__()
    self.var = None

  @polymorphic_function.function
  @dummy_tf_decorator
  def add(self, x, y, z=1):
    if self.var is None:
      return x + y + z

foo3 = Foo3()
print('tf.Module method under an extra decorator:', foo3.add(2, 3).numpy())
foo3b = Foo3()
print('second instance:', foo3b.add(4, 5, z=6).numpy())

float32_scalar = tensor_lib.TensorSpec(shape=(), dtype=dtypes.float32)

class MyModel(module.Module):

  @polymorphic_function.function(
      input_signature=[float32_scalar, float32_scalar])
  def add(self, *arg):
    return math_ops.add(*arg)

m = MyModel()
cf = m.add.get_concrete_function()
print('varargs with a signature:', cf(-12.0, 3.0).numpy())


def func_pos(position_arg1, position_arg2):
  return position_arg1, position_arg2

def func_with_default(position_arg, named_arg=None):
  return position_arg, named_arg

tf_func_pos = polymorphic_function.function(func_pos)
try:
  tf_func_pos(position_arg2='foo')
except TypeError as e:
  print('missing argument:', 'missing a required argument' in str(e))

tf_func_with_default = polymorphic_function.function(func_with_default)
print('only the required argument:', tf_func_with_default(position_arg='bar'))
try:
  tf_func_with_default(named_arg='foo')
except TypeError as e:
  print('missing argument:', 'missing a required argument' in str(e))
