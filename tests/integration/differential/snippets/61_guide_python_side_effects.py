# origin: tensorflow/docs site/en/guide/function.ipynb ("Executing Python side effects" and "Changing Python global and free variables" sections)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import, joined the cells, printed external_list's length after the guide's assert
import tensorflow as tf


@tf.function
def f(x):
  print("Traced with", x)
  tf.print("Executed with", x)

f(1)
f(1)
f(2)

external_list = []

@tf.function
def side_effect(x):
  print('Python side effect')
  external_list.append(x)

side_effect(1)
side_effect(1)
side_effect(1)
# The list append only happened once!
assert len(external_list) == 1
print('len(external_list) =', len(external_list))
