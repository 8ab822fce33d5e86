# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testInputsIncompatibleWithSignatureRaisesError, testInputSignatureConversionWithDefaultArg, testInputSignatureMustBeSequenceOfTensorSpecs)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim; replaced assertRaisesRegex with try/except printing the exception type and whether the test's regex matches, and assertAllEqual with prints
import re

import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.framework import dtypes
from tensorflow.python.framework import tensor as tensor_lib
from tensorflow.python.ops import array_ops


def expect(regex, fn, *args):
  try:
    fn(*args)
    print('no error')
  except Exception as e:  # pylint: disable=broad-except
    print(type(e).__name__, '| regex matches:', re.search(regex, str(e)) is not None)


def foo(a):
  return a

signature = [tensor_lib.TensorSpec(shape=(2,), dtype=dtypes.float32)]
defined = polymorphic_function.function(foo, input_signature=signature)

# Valid call
print('valid call:', defined(array_ops.ones([2])).numpy())

# Invalid shapes.
expect(r'Can not cast .*dtype=tf.int32.* to .*dtype=tf.float32.*',
       defined, array_ops.ones([3], dtype=dtypes.int32))
expect('Can not cast.*', defined, array_ops.ones([3]))
expect('Can not cast.*', defined, array_ops.ones([2, 1]))
# Wrong number of arguments.
expect('too many positional arguments', defined, array_ops.ones([2]), array_ops.ones([2]))
expect('missing a required argument', defined)
expect(r'Can not cast .*shape=\(3,\).* to .*shape=\(2,\).*',
       defined.get_concrete_function,
       tensor_lib.TensorSpec(shape=(3,), dtype=dtypes.float32))
print('tracing count:', defined.experimental_get_tracing_count())


def foo2(a, training=True):
  if training:
    return a
  else:
    return -1.0 * a

signature2 = [
    tensor_lib.TensorSpec([], dtypes.float32),
    tensor_lib.TensorSpec([], dtypes.bool),
]
defined2 = polymorphic_function.function(foo2, input_signature=signature2)
a = constant_op.constant(1.0)
print('default arg:', defined2(a).numpy(), defined2(a, training=True).numpy(),
      defined2(a, training=False).numpy())


def foo3(a, b):
  del a
  del b

# Signatures must consist exclusively of `TensorSpec` objects.
signature3 = [(2, 3), tensor_lib.TensorSpec([2, 3], dtypes.float32)]
expect('input_signature.*nested sequence',
       lambda: polymorphic_function.function(foo3, input_signature=signature3))
