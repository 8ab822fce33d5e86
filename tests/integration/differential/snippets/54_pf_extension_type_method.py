# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (testMethodExtensionType, testVariableUpdate)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim and turned the assertions into prints of the values and trace counts
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.framework import dtypes
from tensorflow.python.framework import extension_type
from tensorflow.python.framework import tensor as tensor_lib
from tensorflow.python.ops import array_ops
from tensorflow.python.ops import variables


class MaskedTensorExtensionType(extension_type.ExtensionType):
  values: tensor_lib.Tensor
  mask: tensor_lib.Tensor

  @polymorphic_function.function
  def with_default(self, default_value):
    return array_ops.where_v2(self.mask, self.values, default_value)

  @polymorphic_function.function
  def sum(self):
    # Use a loop & conditional to test that autograph works correctly.
    result = 0
    for i in range(array_ops.size(self.values)):
      if self.mask[i]:
        result += self.values[i]
    return result

mt = MaskedTensorExtensionType([1, 2, 3], [True, False, True])
print('with_default(-1):', mt.with_default(-1).numpy())
print('sum():', mt.sum().numpy())

v1 = variables.Variable(1.0)
v2 = variables.Variable(2.0)
v3 = variables.Variable(4, dtype=dtypes.int32)

trace_count = [0]

@polymorphic_function.function
def double_variable(x):
  trace_count[0] += 1
  x.assign_add(x.read_value())

print('traces before:', trace_count[0])
double_variable(v1)
print('after v1:', trace_count[0], v1.numpy())
double_variable(v2)
# No retracing because v2's data type and shape are the same as v1
print('after v2:', trace_count[0], v2.numpy())
double_variable(v3)
# Retracing because of data type change
print('after v3:', trace_count[0], v3.numpy())
