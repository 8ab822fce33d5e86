# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testNestedSequenceInputs, testNestedOutputsGraphMode, testDict, testNoneOutput, testGraphFunctionNoneOutput, testNestedOutputGraphFunction)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim and turned the assertions into prints of the values, types and output signatures
import collections

import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.ops import math_ops


def my_op(inputs):
  a, b, c = inputs
  e, f = b
  g, h = e
  return [a + a, [tuple([f + f, g + g]), h + h], c + c], a + f + g + h + c

my_eager_op = polymorphic_function.function(my_op)
ret = my_eager_op([
    constant_op.constant(1),
    [(constant_op.constant(2), constant_op.constant(3)),
     constant_op.constant(4)],
    constant_op.constant(5)
])
print('nested sequence:', len(ret), ret[0][0].numpy(), ret[0][1][0][0].numpy(),
      ret[0][1][0][1].numpy(), type(ret[0][1][0]).__name__, ret[0][1][1].numpy(),
      ret[0][2].numpy(), ret[1].numpy())

matmul = polymorphic_function.function(math_ops.matmul)

pair = collections.namedtuple('pair', ['a', 'b'])

@polymorphic_function.function()
def pairs_mul(pair_a, pair_b):
  return pair(matmul(pair_a.a, pair_b.a), matmul(pair_a.b, pair_b.b))

a = constant_op.constant([[1.0, 2.0], [1.0, 2.0]])
b = constant_op.constant([[3.0, 4.0], [3.0, 4.0]])

out = pairs_mul(pair(a, b), pair(b, a))
print('namedtuple output:', type(out).__name__, out.a.numpy().tolist(), out.b.numpy().tolist())


@polymorphic_function.function
def f(x):
  return {'name': x + 1}

print('dict output:', f(constant_op.constant(1.0))['name'].numpy())


@polymorphic_function.function
def my_function(_):
  return None

print('None output:', my_function(1))


@polymorphic_function.function
def fn(unused_a, unused_b):
  return None

x = constant_op.constant(1)
fn_op = fn.get_concrete_function(x, x)
print('concrete None output:', fn_op.output_dtypes, fn_op.output_shapes, fn_op(x, x))


@polymorphic_function.function
def sq(a):
  return (matmul(a, a), {'b': constant_op.constant(1.0)})

t = constant_op.constant([[1.0, 2.0], [3.0, 4.0]])

sq_op = sq.get_concrete_function(t)
print('output shapes:', sq_op.output_shapes)
print('output dtypes:', sq_op.output_dtypes)
(a, b) = sq_op(t)
print(a.numpy().tolist(), b['b'].numpy())
