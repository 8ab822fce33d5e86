# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/control_flow.md ("`break` statements" section, buggy_while_py_true_tf_break)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a call wrapped in try/except that prints the exception type (the doc names OperatorNotAllowedInGraphError)
import tensorflow as tf


@tf.function
def buggy_while_py_true_tf_break(x):
  while True:   # python conditional
    if tf.equal(x, 0): # tensor break
      break
    x -= 1
  return x


try:
  buggy_while_py_true_tf_break(5)
  print('no error')
except Exception as e:  # pylint: disable=broad-except
  print('raised:', type(e).__name__)
  print('is OperatorNotAllowedInGraphError:',
        isinstance(e, tf.errors.OperatorNotAllowedInGraphError))
