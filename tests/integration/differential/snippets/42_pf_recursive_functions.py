# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py (test_recursive_tf_function, test_recursive_python_function, test_recursive_tf_function_with_gradients)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the test module's imports; kept the function bodies verbatim and turned the assertEqual checks into prints of the values
import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager import backprop
from tensorflow.python.eager.polymorphic_function import polymorphic_function
from tensorflow.python.ops import variables


@polymorphic_function.function
def recursive_fn(n):
  if n > 0:
    return recursive_fn(n - 1)
  return 1

print('recursive_fn(5):', recursive_fn(5).numpy())


def recursive_py_fn(n):
  if n > 0:
    return recursive_py_fn(n - 1)
  return 1

@polymorphic_function.function
def recursive_fn_py(n):
  return recursive_py_fn(n)

print('python recursion inside a tf.function:', recursive_fn_py(5).numpy())


@polymorphic_function.function
def recursive_fn_grad(n, x):
  if n > 0:
    return n * recursive_fn_grad(n - 1, x)
  else:
    return x

x = variables.Variable(1.0)
with backprop.GradientTape() as tape:
  g = recursive_fn_grad(5, x)

dg_dx = tape.gradient(g, x)
print('value:', g.numpy(), 'gradient:', dg_dx.numpy())
print('tracing count of recursive_fn:', recursive_fn.experimental_get_tracing_count())
