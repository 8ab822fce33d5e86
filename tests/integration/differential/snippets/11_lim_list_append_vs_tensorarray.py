# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Modifying Python collections in TensorFlow control flow is not allowed" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped the two AutoGraph fragments in @tf.functions returning the collection, added calls; the error is caught and its type printed
import tensorflow as tf


@tf.function
def with_list():
  l = []
  for i in tf.range(10):
    l.append(i)  # Error -- illegal tensor capture!
  return l


@tf.function
def with_tensor_array():
  l = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
  for i in tf.range(10):
    l = l.write(l.size(), i)  # Okay
  return l.stack()


try:
  print(with_list())
except Exception as e:  # pylint: disable=broad-except
  print('list version raised:', type(e).__name__)
print('TensorArray version:', with_tensor_array().numpy())
