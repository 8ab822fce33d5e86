# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Consistency of dtype" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a seed, wrapped the AutoGraph fragments in @tf.functions, added calls in try/except printing the error types
import tensorflow as tf

tf.random.set_seed(3)


@tf.function
def cond_dtypes():
  if tf.random.uniform(()) > 0.5:
    x = tf.constant(1, dtype=tf.int32)
  else:
    x = tf.constant(1, dtype=tf.float32)  # Error -- inconsistent dtypes: int32, float32
  return x


@tf.function
def loop_dtypes():
  x = tf.constant(0, dtype=tf.int32)
  while tf.random.uniform(()) > 0.5:
    x = tf.constant(0, dtype=tf.float32)   # Error -- inconsistent dtypes: int32, float32
  return x


for fn in (cond_dtypes, loop_dtypes):
  try:
    fn()
    print(fn.__name__, 'no error')
  except Exception as e:  # pylint: disable=broad-except
    print(fn.__name__, 'raised:', type(e).__name__)
    print('  mentions int32 and float32:', 'int32' in str(e) and 'float32' in str(e))
