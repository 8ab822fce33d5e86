# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/limitations.md ("Variables closed over by lambda functions" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped each fragment in a @tf.function and added the calls; the error case is caught and its type printed
import tensorflow as tf


@tf.function
def nested_function_closure():
  a = 0
  def f():
    tf.print(a)
  for i in tf.range(3):
    a = i
  f()  # Prints 2


@tf.function
def nested_function_undefined():
  def f():
    tf.print(a)
  for i in tf.range(3):  # Error -- `a` must be defined before the loop.
    a = i


@tf.function
def lambda_closure():
  a = 0
  l = lambda: tf.print(a)
  for i in tf.range(3):
    a = i  # `a` is considered local to the loop
  l()  # Prints 0!


print('--- nested function (doc: prints 2)')
nested_function_closure()
print('--- nested function, a undefined before the loop (doc: error)')
try:
  nested_function_undefined()
  print('no error')
except Exception as e:  # pylint: disable=broad-except
  print('raised:', type(e).__name__)
print('--- lambda (doc: prints 0)')
lambda_closure()
print('--- the same lambda code run as plain Python')
lambda_closure.python_function()
