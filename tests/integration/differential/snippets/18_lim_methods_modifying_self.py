# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Modifications of Python objects are not detected in methods" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, fixed the doc's `def MyClass(object):` to `class MyClass(object):`, gave y an initial tensor, wrapped each fragment in a @tf.function with a loop counter, caught errors and printed the results
import tensorflow as tf


class MyClass(object):

  def __init__(self):
    self.y = tf.constant(0)

  def change(self):
    self.y += 1


@tf.function
def hidden_method(x):
  c = MyClass()
  while x > 0:
    c.change()  # Problem -- modification to c.y is not visible here!
    x -= 1
  return c.y


@tf.function
def direct_property(x):
  c = MyClass()
  while x > 0:
    c.y += 1  # Okay -- c.y can now be properly tracked!
    x -= 1
  return c.y


class MyClass2(object):

  def __init__(self):
    self.y = tf.constant(0)

  def change(self):
    self.y += 1
    return self


for fn in (hidden_method, direct_property):
  try:
    print(fn.__name__, fn(tf.constant(3)).numpy())
  except Exception as e:  # pylint: disable=broad-except
    print(fn.__name__, 'raised:', type(e).__name__)


@tf.function
def returned_self(x):
  c = MyClass2()
  while x > 0:
    c = c.change()  # Okay -- c is now a loop var.
    x -= 1
  return c.y


try:
  print('returned_self', returned_self(tf.constant(3)).numpy())
except Exception as e:  # pylint: disable=broad-except
  print('returned_self raised:', type(e).__name__)
