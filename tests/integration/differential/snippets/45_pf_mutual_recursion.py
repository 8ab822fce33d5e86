# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (test_recursive_tf_function_call_each_other)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's import; kept the function bodies verbatim and turned the assertEqual checks into prints of the values and tracing counts (arguments 5 and 6 lowered to 3 and 4 to keep the run short)
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager.polymorphic_function import polymorphic_function


@polymorphic_function.function
def recursive_fn1(n):
  if n <= 1:
    return 1
  return recursive_fn2(n - 1)

@polymorphic_function.function
def recursive_fn2(n):
  if n <= 1:
    return 2
  return recursive_fn1(n - 1)

print('recursive_fn1(3):', recursive_fn1(3).numpy())
print('recursive_fn1(4):', recursive_fn1(4).numpy())
print('recursive_fn2(3):', recursive_fn2(3).numpy())
print('recursive_fn2(4):', recursive_fn2(4).numpy())
print('tracing counts:', recursive_fn1.experimental_get_tracing_count(),
      recursive_fn2.experimental_get_tracing_count())
