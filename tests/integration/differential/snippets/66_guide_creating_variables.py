# origin: tensorflow/docs site/en/guide/function.ipynb ("Creating tf.Variables" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import and the guide's assert_raises helper (traceback printing dropped), joined the cells, added a second Count instance
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
def f(x):
  v = tf.Variable(1.0)
  return v

with assert_raises(ValueError):
  f(1.0)


class Count(tf.Module):
  def __init__(self):
    self.count = None

  @tf.function
  def __call__(self):
    if self.count is None:
      self.count = tf.Variable(0)
    return self.count.assign_add(1)

c = Count()
print(c())
print(c())
c2 = Count()
print(c2())
print(c())
