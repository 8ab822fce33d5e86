# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Undefined and None values in TensorFlow" section, the "Okay" fragments)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a seed, wrapped the fragments in @tf.functions with calls; the doc's `x = tf.constant()` (which has no value) became `x = tf.constant(0)`
import tensorflow as tf

tf.random.set_seed(2)


@tf.function
def local_to_cond():
  if tf.random.uniform(()) > 0.5:
    x = tf.constant(1)  # Okay -- x does not need to be returned from the TF cond
  else:
    pass
  return tf.constant('cond ok')


@tf.function
def local_to_loop():
  i = tf.constant(0)
  while i < 3:  # Okay -- x is local to the loop
    x = tf.constant(1)
    i += 1
  return i


@tf.function
def with_default():
  x = tf.constant(0)
  if tf.constant(True):
    x = tf.constant(1)
  tf.print(x)  # Okay -- x is either 0 or 1


print(local_to_cond().numpy())
print(local_to_loop().numpy())
with_default()
