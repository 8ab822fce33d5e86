# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Mixing dynamic computations and static shapes" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, defined some_default_value, wrapped the fragments in @tf.functions with calls (errors caught, types printed); the doc's input_signature=(tf.TensorSpec(...)) is tried verbatim first, then as a 1-tuple
import tensorflow as tf

some_default_value = tf.constant(-1.0)


@tf.function
def static_check(x):
  if x.shape[0] > 4:
    val = x[4]
  else:
    val = some_default_value
  return val


@tf.function
def tf_shape_check():
  x = tf.constant((1., 2., 3.))
  if tf.shape(x)[0] > 4:
    val = x[4]  # Error at tracing: 4 is out of bounds!
  else:
    val = some_default_value
  return val


print('static check:', static_check(tf.constant((1., 2., 3.))).numpy())
try:
  print(tf_shape_check())
except Exception as e:  # pylint: disable=broad-except
  print('tf.shape check raised:', type(e).__name__)


def f(x):  # x now has dynamic shape
  if tf.shape(x)[0] >= 3:  # Builds a tf.cond
    val = x[4]  # Okay, bounds checks are skipped when the shape is dynamic
  else:
    val = some_default_value
  return val


try:
  verbatim = tf.function(input_signature=(tf.TensorSpec(shape=(None,))))(f)
  print('verbatim signature accepted:', verbatim.input_signature)
except Exception as e:  # pylint: disable=broad-except
  print('verbatim signature raised:', type(e).__name__)

g = tf.function(input_signature=(tf.TensorSpec(shape=(None,)),))(f)
print('dynamic shape, 2 elements:', g(tf.constant([1., 2.])).numpy())
try:
  print(g(tf.constant([1., 2., 3.])))
except Exception as e:  # pylint: disable=broad-except
  print('dynamic shape, 3 elements raised at run time:', type(e).__name__)
