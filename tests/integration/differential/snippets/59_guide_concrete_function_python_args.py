# origin: tensorflow/docs site/en/guide/function.ipynb ("Obtaining concrete functions" and "Obtaining graphs" sections, the pow example)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import and the guide's assert_raises helper (traceback printing dropped), printed the square result; the graph-node listing prints the op types of a small function instead of the guide's double_strings graph
import contextlib

import tensorflow as tf


@contextlib.contextmanager
def assert_raises(error_class):
  try:
    yield
  except error_class as e:
    print('Caught expected exception \n  {}:'.format(error_class))
  except Exception as e:
    raise e
  else:
    raise Exception('Expected {} to be raised but no error was raised!'.format(
        error_class))


@tf.function
def pow(a, b):
  return a ** b

square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
print(square)

assert square(tf.constant(10.0)) == 100
print('square(10.0) =', square(tf.constant(10.0)).numpy())

with assert_raises(TypeError):
  square(tf.constant(10.0), b=3)


@tf.function
def double(a):
  return a + a

double_strings = double.get_concrete_function(tf.constant("a"))
graph = double_strings.graph
for node in graph.as_graph_def().node:
  print(f'{node.input} -> {node.name}')
