# origin: tensorflow/docs site/en/guide/function.ipynb ("Recursive tf.functions are not supported" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import and the guide's assert_raises helper (traceback printing dropped), renamed the second recursive_fn to recursive_fn2, printed its result and tracing count
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
def recursive_fn(n):
  if n > 0:
    return recursive_fn(n - 1)
  else:
    return 1

with assert_raises(Exception):
  recursive_fn(tf.constant(5))  # Bad - maximum recursion error.


@tf.function
def recursive_fn2(n):
  if n > 0:
    print('tracing')
    return recursive_fn2(n - 1)
  else:
    return 1

print(recursive_fn2(5).numpy())  # Warning - multiple tracings
print('tracing count:', recursive_fn2.experimental_get_tracing_count())
