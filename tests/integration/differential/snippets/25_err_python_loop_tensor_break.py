# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/common_errors.md ("OperatorNotAllowedInGraphError: using a `tf.Tensor` as a Python `bool`" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped both fragments in @tf.functions returning i, added calls; the first one's error is caught and its type printed (the doc names OperatorNotAllowedInGraphError)
import tensorflow as tf


@tf.function
def python_loop():
  for i in range(3):  # Python loop
    if i > tf.constant(0):  # TF conditional
      break  # raises OperatorNotAllowedInGraphError
  return i


@tf.function
def tf_loop():
  for i in tf.range(3):  # TF loop
    if i > tf.constant(0):  # TF conditional
      break  # works
  return i


try:
  python_loop()
  print('python loop: no error')
except Exception as e:  # pylint: disable=broad-except
  print('python loop raised:', type(e).__name__)
print('tf loop returned:', tf_loop().numpy())
