# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testCompositeAsArgumentTensorWithDefun, testReturnCompositeTensorWithDefun, testLimitedRetracingWithCompositeTensors)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim; ran the parameterized cases in a loop and replaced the assertions with prints of the output type, the flattened components and the trace counts; the retracing loop runs 4 rounds instead of 10
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import constant_op
from tensorflow.python.framework import dtypes
from tensorflow.python.framework import indexed_slices
from tensorflow.python.framework import sparse_tensor
from tensorflow.python.ops.ragged import ragged_factory_ops
from tensorflow.python.ops.ragged import ragged_tensor
from tensorflow.python.util import nest


def _example_indexed_slices_with_dense_shape():
  return indexed_slices.IndexedSlices(
      constant_op.constant([1, 2]), constant_op.constant([0, 1]),
      constant_op.constant([2]))


cases = [
    ('IndexedSlicesWithDenseShape',
     _example_indexed_slices_with_dense_shape, {}, None),
    ('RaggedTensorRaggedRank1', ragged_tensor.RaggedTensor.from_row_lengths,
     {'values': [1, 2, 3], 'row_lengths': [2, 0, 1]}, None),
    ('RaggedTensorRaggedRank2',
     ragged_tensor.RaggedTensor.from_nested_row_lengths,
     {'flat_values': [1, 2, 3], 'nested_row_lengths': [[1, 2], [2, 0, 1]]}, None),
    ('SparseTensor', sparse_tensor.SparseTensor,
     {'values': [1, 2, 3], 'indices': [[0], [8], [10]], 'dense_shape': [20]}, None),
    ('RaggedTensorRaggedRank1WithSignature',
     ragged_tensor.RaggedTensor.from_row_lengths,
     {'values': [1, 2, 3], 'row_lengths': [2, 0, 1]},
     [ragged_tensor.RaggedTensorSpec([None, None], dtypes.int32)]),
    ('SparseTensorWithSignature',
     sparse_tensor.SparseTensor,
     {'values': [1, 2, 3], 'indices': [[0], [8], [10]], 'dense_shape': [20]},
     [sparse_tensor.SparseTensorSpec([None], dtypes.int32)]),
]

for name, factory_fn, factory_kwargs, input_signature in cases:
  input_ct = factory_fn(**factory_kwargs)

  @polymorphic_function.function(input_signature=input_signature)
  def f(x):
    return x

  output_ct = f(input_ct)
  nest.assert_same_structure(input_ct, output_ct, expand_composites=True)
  output_flat = nest.flatten(output_ct, expand_composites=True)
  print(name, type(output_ct).__name__,
        [component.numpy().tolist() for component in output_flat])

  if input_signature is None:
    @polymorphic_function.function
    def g():
      return input_ct

    returned = g()
    print('  returned from a closure:', type(returned).__name__,
          [c.numpy().tolist() for c in nest.flatten(returned, expand_composites=True)])

trace_count = [0]

@polymorphic_function.function
def h(x):
  trace_count[0] += 1
  return x

for i in range(4):
  h(ragged_factory_ops.constant([[1, 2], [i]]))
  h(ragged_factory_ops.constant([[1, 2], [], [3, 4, 5]]))
  h(ragged_factory_ops.constant([[[1, 2], [3]], [[4, 5, 6]]]))
print('ragged trace count after 12 calls:', trace_count[0])
