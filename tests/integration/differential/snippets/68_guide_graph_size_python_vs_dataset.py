# origin: tensorflow/docs site/en/guide/function.ipynb ("Looping over Python data" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import and a call printing the train result for each input
import tensorflow as tf


def measure_graph_size(f, *args):
  g = f.get_concrete_function(*args).graph
  print("{}({}) contains {} nodes in its graph".format(
      f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))

@tf.function
def train(dataset):
  loss = tf.constant(0)
  for x, y in dataset:
    loss += tf.abs(y - x) # Some dummy computation.
  return loss

small_data = [(1, 1)] * 3
big_data = [(1, 1)] * 10
measure_graph_size(train, small_data)
measure_graph_size(train, big_data)

measure_graph_size(train, tf.data.Dataset.from_generator(
    lambda: small_data, (tf.int32, tf.int32)))
measure_graph_size(train, tf.data.Dataset.from_generator(
    lambda: big_data, (tf.int32, tf.int32)))

print('train(small_data) =', train(small_data).numpy())
print('train(dataset) =', train(tf.data.Dataset.from_tensor_slices(([1, 5], [3, 2]))).numpy())
