# origin: tensorflow/docs site/en/guide/function.ipynb ("Pass tensors instead of python literals" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import, joined the two cells, added prints of the tracing counts
import tensorflow as tf


def train_one_step():
  pass

@tf.function
def train(num_steps):
  print("Tracing with num_steps = ", num_steps)
  tf.print("Executing with num_steps = ", num_steps)
  for _ in tf.range(num_steps):
    train_one_step()

print("Retracing occurs for different Python arguments.")
train(num_steps=10)
train(num_steps=20)

print()
print("Traces are reused for Tensor arguments.")
train(num_steps=tf.constant(10))
train(num_steps=tf.constant(20))
print('tracing count:', train.experimental_get_tracing_count())


def f():
  print('Tracing!')
  tf.print('Executing')

tf.function(f)()
tf.function(f)()
