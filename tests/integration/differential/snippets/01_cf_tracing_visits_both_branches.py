# origin: tensorflow/tensorflow tensorflow/python/autograph/g3doc/reference/control_flow.md ("All Python code paths are executed during tracing" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the imports, wrapped each doc fragment in a @tf.function and added the calls
import tensorflow as tf


@tf.function
def tensor_condition():
  print('before if')
  if tf.constant(True):
    print('true branch')
  else:
    print('false branch')
  print('after if')


@tf.function
def python_condition():
  print('before if')
  if True:  # Condition not a Tensor, running normally
    print('true branch')
  else:
    print('false branch')
  print('after if')


print('--- tensor condition (doc: both branches print)')
tensor_condition()
print('--- second call: no retrace, nothing printed')
tensor_condition()
print('--- python condition (doc: only the true branch prints)')
python_condition()
