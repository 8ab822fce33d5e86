# origin: tensorflow/tensorflow tensorflow/python/eager/polymorphic_function/polymorphic_function.py (docstring of tf.function: "Features", "Retracing", "Input signatures", "Variables may only be created once", "Python operations execute only once per trace")
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import, turned the >>> examples into a script with print() of every value the doctest shows; redefinitions of f/x/y/state are kept in the docstring's order
import tensorflow as tf


@tf.function
def f(x, y):
  return x ** 2 + y
x = tf.constant([2, 3])
y = tf.constant([3, -2])
print(f(x, y).numpy())


@tf.function
def f(x):
  if tf.reduce_sum(x) > 0:
    return x * x
  else:
    return -x // 2
print(f(tf.constant(-2)).numpy())


@tf.function
def f():
  return x ** 2 + y
x = tf.constant([-2, -3])
y = tf.Variable([3, -2])
print(f().numpy())

v = tf.Variable(1)
@tf.function
def f(x):
  for i in tf.range(x):
    v.assign_add(i)
f(3)
print(v.numpy())

l = []
@tf.function
def f(x):
  for i in x:
    l.append(i + 1)    # Caution! Will only happen once when tracing
f(tf.constant([1, 2, 3]))
print(len(l), type(l[0]).__name__)


@tf.function
def f(x):
  ta = tf.TensorArray(dtype=tf.int32, size=0, dynamic_size=True)
  for i in range(len(x)):
    ta = ta.write(i, x[i] + 1)
  return ta.stack()
print(f(tf.constant([1, 2, 3])).numpy())


@tf.function
def f(x):
  return x + 1
print(isinstance(f.get_concrete_function(1).graph, tf.Graph))


@tf.function
def f(x):
  return tf.abs(x)
f1 = f.get_concrete_function(1)
f2 = f.get_concrete_function(2)  # Slow - compiles new graph
print(f1 is f2)
f1 = f.get_concrete_function(tf.constant(1))
f2 = f.get_concrete_function(tf.constant(2))  # Fast - reuses f1
print(f1 is f2)


@tf.function
def f(x):
  return x + 1
vector = tf.constant([1.0, 1.0])
matrix = tf.constant([[3.0]])
print(f.get_concrete_function(vector) is f.get_concrete_function(matrix))


@tf.function(
    input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])
def f(x):
  return x + 1
vector = tf.constant([1.0, 1.0])
matrix = tf.constant([[3.0]])
print(f.get_concrete_function(vector) is f.get_concrete_function(matrix))


class MyModule(tf.Module):
  def __init__(self):
    self.v = None

  @tf.function
  def __call__(self, x):
    if self.v is None:
      self.v = tf.Variable(tf.ones_like(x))
    return self.v * x
print(MyModule()(tf.constant([1.0, 2.0])).numpy())

state = tf.Variable(1)
@tf.function
def f(x):
  state.assign_add(x)
f(tf.constant(2))  # Non-pure functional style
print(state.numpy())

state = tf.constant(1)
@tf.function
def f(state, x):
  state += x
  return state
state = f(state, tf.constant(2))  # Pure functional style
print(state.numpy())


@tf.function
def f(a, b):
  print('this runs at trace time; a is', a, 'and b is', b)
  return b
print(f(1, tf.constant(1)).numpy())
print(f(1, tf.constant(2)).numpy())
print(f(2, tf.constant(1)).numpy())
print(f(2, tf.constant(2)).numpy())
