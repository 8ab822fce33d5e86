# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/control_flow.md ("`return` statements" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, a seed, wrapped the fragment in a @tf.function, added a call in try/except printing the error type and the doc's expected message check
import tensorflow as tf

tf.random.set_seed(0)


@tf.function
def f():
  if tf.random.uniform(()) > 0.5:
    return 1


try:
  f()
  print('no error')
except ValueError as e:
  print('raised ValueError')
  print('doc message present:',
        'A value must also be returned from the else branch' in str(e) or
        'must also have a return' in str(e))
