# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/debugging.md ("Debugging `tf.function`: `tf.config.experimental_execute_functions_eagerly`" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, replaced pdb.set_trace() with a print of whether the code runs eagerly, called f in graph mode and with run_functions_eagerly(True), then reset it
import tensorflow as tf


@tf.function
def f(a):
  print('executing eagerly:', tf.executing_eagerly())
  if a > 0:
    tf.print(a, 'is positive')


print('--- graph mode')
f(1)
f(1)
tf.config.run_functions_eagerly(True)
print('--- run_functions_eagerly(True)')
f(1)
f(1)
print('functions_run_eagerly:', tf.config.functions_run_eagerly())
tf.config.run_functions_eagerly(False)
print('--- back to graph mode (no retrace for f(1))')
f(1)
print('functions_run_eagerly:', tf.config.functions_run_eagerly())
