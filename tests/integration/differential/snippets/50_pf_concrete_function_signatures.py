# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testPrettyPrintedSignature, testPrettyPrintedExplicitSignatureWithKeywordArg, testConcreteFunctionWithNonTensorStringInputs, testConcreteFunctionStructuredSignatureKeywordOrder, test_concrete_function_shape_mismatch)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim and printed the signatures and values the test compares (the repr with its address is left out)
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.framework import dtypes
from tensorflow.python.framework import ops
from tensorflow.python.framework import tensor as tensor_lib
from tensorflow.python.ops import string_ops


@polymorphic_function.function
def func(x, kangaroo=None, octopus=7):
  del octopus, kangaroo
  return x

scalar = constant_op.constant(5)
vector = constant_op.constant([10, 10, 20])

concrete_fn = func.get_concrete_function(scalar, vector)
print(concrete_fn.pretty_printed_signature(verbose=False))
print(concrete_fn.pretty_printed_signature(verbose=True))
print(str(concrete_fn))


@polymorphic_function.function(
    input_signature=[tensor_lib.TensorSpec(None)])
def fn(a, b=1):
  return a + b

print(fn.get_concrete_function().pretty_printed_signature(False))


@polymorphic_function.function
def f(x, y):
  return string_ops.string_join([x, y])

a = constant_op.constant('a')
b = 'b'

cf = f.get_concrete_function(a, b)
for output in [cf(a), cf(x=a), cf(a, b), cf(x=a, y=b)]:
  print('string join:', output.numpy())


@polymorphic_function.function
def g(**kwargs):
  return string_ops.reduce_join(
      string_ops.reduce_join(
          ops.convert_to_tensor(sorted(kwargs.items())),
          axis=1,
          separator='='),
      axis=0,
      separator=', ')

s = constant_op.constant('s')
g.get_concrete_function(q=s, a=s, p=s, r=s, v=s, m=s, l=s)
print(g(m='a', r='b', v='c', q='d', l='e', a='f', p='g').numpy())
print(g(q='d', a='f', p='g', r='b', v='c', m='a', l='e').numpy())


@polymorphic_function.function
def h(argument_name):
  return argument_name + 1.

f_concrete = h.get_concrete_function(constant_op.constant([1.]))

# Calling a function from eager doesn't do any shape checking above what
# kernels do while executing.
print('eager call with a longer vector:', f_concrete(constant_op.constant([1., 2.])).numpy())

@polymorphic_function.function
def k():
  f_concrete(constant_op.constant([1., 2.]))

try:
  k()
  print('no error')
except TypeError as e:
  print('call inside a tf.function raised TypeError:', 'Can not cast' in str(e))
