# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/control_flow.md ("`for` statements" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped each doc fragment in a @tf.function and added the calls
import tensorflow as tf


@tf.function
def over_tensor():
  for i in tf.constant(((1, 2), (3, 4))):
    tf.print('iteration:', i)


@tf.function
def over_range():
  for i in tf.range(3):
    tf.print('iteration:', i)


@tf.function
def over_dataset():
  for i in tf.data.Dataset.range(3):
    tf.print('iteration:', i)


@tf.function
def over_dataset_with_break():
  for i in tf.data.Dataset.range(3):
    tf.print('iteration:', i)
    break


@tf.function
def over_dataset_iterator():
  for i in iter(tf.data.Dataset.range(3)):
    tf.print('iteration:', i)


@tf.function
def over_python_list():
  for i in [1, 2, 3]:
    print('iteration:', i)


for fn in (over_tensor, over_range, over_dataset, over_dataset_with_break,
           over_dataset_iterator, over_python_list):
  print('---', fn.__name__)
  fn()
