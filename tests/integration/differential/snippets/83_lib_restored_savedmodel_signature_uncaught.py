# origin: tensorflow/docs site/en/guide/saved_model.ipynb ("Saving a custom model", "Specifying signatures during export")
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: the guide's CustomModule with an input_signature, saved to a temporary directory and loaded back; the restored function is called with a matrix no signature takes, left uncaught on purpose (exit code 1)
import tempfile

import tensorflow as tf


class CustomModule(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        print("Tracing with", x)
        return x * self.v


module = CustomModule()
print(module(tf.constant([1.0, 2.0])).numpy())
with tempfile.TemporaryDirectory() as path:
    tf.saved_model.save(module, path)
    imported = tf.saved_model.load(path)
print(imported(tf.constant([3.0])).numpy())
print(imported.v.numpy())
imported(tf.constant([[1.0]]))
print("not reached")
