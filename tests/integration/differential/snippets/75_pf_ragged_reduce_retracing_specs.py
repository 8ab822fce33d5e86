# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testInputShapeFunctionRelaxationWithRaggedTensors)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function body and the check_trace calls verbatim; check_trace prints the traced spec and whether it equals the test's expectation instead of assertEqual
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import dtypes
from tensorflow.python.ops.ragged import ragged_factory_ops
from tensorflow.python.ops.ragged import ragged_tensor

traced_type_spec = [None]

@polymorphic_function.function(reduce_retracing=True)
def func(x):
  traced_type_spec[0] = x._type_spec
  return x

def check_trace(x, expected_trace):
  traced_type_spec[0] = None
  func(x)
  print(traced_type_spec[0], '| as expected:', traced_type_spec[0] == expected_trace)

check_trace(  # Initial call gets traced.
    ragged_factory_ops.constant([[1], [2, 3, 4]]),
    ragged_tensor.RaggedTensorSpec([2, None], dtypes.int32))
check_trace(  # Input TypeSpec is the same -> no retrace.
    ragged_factory_ops.constant([[1, 2], [3, 4]]), None)
check_trace(  # Even if component tensor shapes change -> no retrace.
    ragged_factory_ops.constant([[1, 2], [3, 4, 5, 6]]), None)
check_trace(  # Different TypeSpec shape (nrows): relax & retrace
    ragged_factory_ops.constant([[1], [2], [3]]),
    ragged_tensor.RaggedTensorSpec([None, None], dtypes.int32))
check_trace(  # Different nrows again: relax & retrace
    ragged_factory_ops.constant([[1], [2], [3], [4]]), None)
check_trace(  # Different nrows yet again: not retrace
    ragged_factory_ops.constant([[1]]), None)
check_trace(  # Different ragged_rank: retrace
    ragged_factory_ops.constant([[[1]]]),
    ragged_tensor.RaggedTensorSpec([1, None, None], dtypes.int32))
check_trace(  # Different ragged_rank again: retrace & relax
    ragged_factory_ops.constant([[[1]], [[2]]]),
    ragged_tensor.RaggedTensorSpec([None, None, None], dtypes.int32))
print('tracing count:', func.experimental_get_tracing_count())
