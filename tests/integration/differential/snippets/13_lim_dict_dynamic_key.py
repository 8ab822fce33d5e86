# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Python collections of fixed structure with dynamic index" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped both fragments in @tf.functions returning d, added the calls; the first one's error is caught and its type printed
import tensorflow as tf


@tf.function
def dynamic_key():
  d = {'a': tf.constant(3)}
  for i in tf.range(10):
    for key in d:
      d[key] += i  # Problem -- accessing `dict` using non-constant key
  return d


@tf.function
def functional_style():
  d = {'a': tf.constant(3)}
  for i in tf.range(10):
    d = {key: value + i for key, value in d.items()}  # Okay
  return d


try:
  print('dynamic key:', dynamic_key()['a'].numpy())
except Exception as e:  # pylint: disable=broad-except
  print('dynamic key raised:', type(e).__name__)
print('functional style:', functional_style()['a'].numpy())
