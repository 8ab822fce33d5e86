# origin: tensorflow/docs site/en/guide/function.ipynb ("Changing Python global and free variables" section, the Model counter and tf.init_scope examples)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import, renamed the second Model class to ModelInitScope so both fit in one script
import tensorflow as tf


class Model(tf.Module):
  def __init__(self):
    self.v = tf.Variable(0)
    self.counter = 0

  @tf.function
  def __call__(self):
    if self.counter == 0:
      # A python side-effect
      self.counter += 1
      self.v.assign_add(1)

    return self.v

m = Model()
for n in range(3):
  print(m().numpy()) # prints 1, 2, 3


class ModelInitScope(tf.Module):
  def __init__(self):
    self.v = tf.Variable(0)
    self.counter = 0

  @tf.function
  def __call__(self):
    if self.counter == 0:
      # Lifts ops out of function-building graphs
      with tf.init_scope():
        self.counter += 1
        self.v.assign_add(1)

    return self.v

m = ModelInitScope()
for n in range(3):
  print(m().numpy()) # prints 1, 1, 1
