# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Modifications of Python objects are not detected across functions" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped each fragment in a @tf.function with a tensor loop condition x and a loop counter, added the calls and prints of the results
import tensorflow as tf

y = 0


def change_y():
  global y
  y = y + 1


@tf.function
def global_version(x):
  while x > 0:
    change_y()  # Problem -- change made to y is not visible here!
    x -= 1
  return x


def change(y):
  y = y + 1
  return y


@tf.function
def functional_version(x):
  y = tf.constant(0)
  while x > 0:
    y = change(y)  # Okay -- y can now be properly tracked!
    x -= 1
  return y


def change_var(y_var):
  y_var.assign_add(1)


y_variable = tf.Variable(1)


@tf.function
def variable_version(x):
  while x > 0:
    change_var(y_variable)  # This is still okay -- TensorFlow side effects are robust.
    x -= 1
  return y_variable.read_value()


def change_ta(ta):
  ta = ta.write(0, 1)  # Modifications create a new TensorArray efficiently.
  return ta


@tf.function
def tensor_array_version(x):
  ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
  while x > 0:
    # TensorArray must be handled using functional programming style.
    ta = change_ta(ta)
    x -= 1
  return ta.stack()


global_version(tf.constant(3))
print('global y after 3 iterations (traced once):', y)
print('functional:', functional_version(tf.constant(3)).numpy())
print('variable:', variable_version(tf.constant(3)).numpy())
print('tensor array:', tensor_array_version(tf.constant(3)).numpy())
