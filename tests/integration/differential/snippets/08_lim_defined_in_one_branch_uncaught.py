# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Undefined and None values in TensorFlow" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports and a seed, wrapped the fragment (minus the `del x`) in a @tf.function and added a call; the exception is left uncaught on purpose (exit code 1)
import tensorflow as tf

tf.random.set_seed(1)


@tf.function
def f():
  if tf.random.uniform(()) > 0.5:
    x = tf.constant(1)
  else:
    pass
  tf.print(x)  # Error -- x may be undefined here


print('calling f()')
f()
print('not reached')
