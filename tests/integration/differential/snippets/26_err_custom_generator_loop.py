# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/common_errors.md ("WARNING: Large unrolled loop detected" section, custom generator)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports; ran the doc loop eagerly, then inside a @tf.function whose Python loop is capped with zip(..., range(12)) because uncapped it never ends while tracing; only traced, and the PrintV2 ops in the graph are counted
import tensorflow as tf


def my_iterator(ds):
  for data in ds:
    yield data


print('--- eager')
# Custom iterators always dispatch to a Python for loop.
for x in my_iterator(tf.data.Dataset.range(10)):
  tf.print(x)


@tf.function
def f():
  # Custom iterators always dispatch to a Python for loop.
  for x, _ in zip(my_iterator(tf.data.Dataset.range(10)), range(12)):
    tf.print(x)


print('--- traced inside tf.function, loop capped at 12 iterations')
ops = f.get_concrete_function().graph.get_operations()
print('PrintV2 ops:', sum(1 for op in ops if op.type == 'PrintV2'))
