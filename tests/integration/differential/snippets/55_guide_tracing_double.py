# origin: tensorflow/docs site/en/guide/function.ipynb ("What is tracing?" and "Obtaining concrete functions" sections)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import and the guide's assert_raises helper (traceback printing dropped), joined the cells into one script
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
def double(a):
  print("Tracing with", a)
  return a + a

print(double(tf.constant(1)))
print()
print(double(tf.constant(1.1)))
print()
print(double(tf.constant("a")))
print()

# This doesn't print 'Tracing with ...'
print(double(tf.constant("b")))

print(double.pretty_printed_concrete_signatures())

print("Obtaining concrete trace")
double_strings = double.get_concrete_function(tf.constant("a"))
print("Executing traced function")
print(double_strings(tf.constant("a")))
print(double_strings(a=tf.constant("b")))

# You can also call get_concrete_function on an InputSpec
double_strings_from_inputspec = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
print(double_strings_from_inputspec(tf.constant("c")))

print(double_strings)
print(double_strings.structured_input_signature)
print(double_strings.structured_outputs)

with assert_raises(tf.errors.InvalidArgumentError):
  double_strings(tf.constant(1))

print('tracing count:', double.experimental_get_tracing_count())
