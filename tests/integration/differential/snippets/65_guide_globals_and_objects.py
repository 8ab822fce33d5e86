# origin: tensorflow/docs site/en/guide/function.ipynb ("Depending on Python global and free variables" and "Depending on Python objects" sections)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import, joined the cells, renamed the redefined functions (variable_add's foo becomes foo_var, the three evaluate functions get suffixes) so they fit in one script
import tensorflow as tf


@tf.function
def buggy_add():
  return 1 + foo

@tf.function
def recommended_add(foo):
  return 1 + foo

foo = 1
print("Buggy:", buggy_add())
print("Correct:", recommended_add(foo))

print("Updating the value of `foo` to 100!")
foo = 100
print("Buggy:", buggy_add())  # Did not change!
print("Correct:", recommended_add(foo))


@tf.function
def variable_add():
  return 1 + foo_var

foo_var = tf.Variable(1)
print("Variable:", variable_add())

print("Updating the value of `foo` to 100!")
foo_var.assign(100)
print("Variable:", variable_add())


class SimpleModel(tf.Module):
  def __init__(self):
    # These values are *not* tf.Variables.
    self.bias = 0.
    self.weight = 2.

@tf.function
def evaluate(model, x):
  return model.weight * x + model.bias

simple_model = SimpleModel()
x = tf.constant(10.)
print(evaluate(simple_model, x))

print("Adding bias!")
simple_model.bias += 5.0
print(evaluate(simple_model, x))  # Didn't change :(


def evaluate_py(model, x):
  return model.weight * x + model.bias

new_model = SimpleModel()
evaluate_no_bias = tf.function(evaluate_py).get_concrete_function(new_model, x)
# Don't pass in `new_model`, `Function` already captured its state during tracing.
print(evaluate_no_bias(x))

print("Adding bias!")
new_model.bias += 5.0
# Create new Function and ConcreteFunction since you modified new_model.
evaluate_with_bias = tf.function(evaluate_py).get_concrete_function(new_model, x)
print(evaluate_with_bias(x)) # Don't pass in `new_model`.


class BetterModel:

  def __init__(self):
    self.bias = tf.Variable(0.)
    self.weight = tf.Variable(2.)

@tf.function
def evaluate_better(model, x):
  return model.weight * x + model.bias

better_model = BetterModel()
print(evaluate_better(better_model, x))

print("Adding bias!")
better_model.bias.assign_add(5.0)  # Note: instead of better_model.bias += 5
print(evaluate_better(better_model, x))  # This works!
