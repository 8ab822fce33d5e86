# origin: tensorflow/tensorflow tensorflow/python/framework/config.py (docstrings of tf.config.optimizer.set_jit, set_experimental_options, tf.config.experimental.enable_op_determinism, tf.config.run_functions_eagerly)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: each setter on the first lines and read back; the run_functions_eagerly docstring's
#   print inside a tf.function, which runs at every call while functions run eagerly
import tensorflow as tf

tf.config.optimizer.set_jit("autoclustering")
print("jit:", tf.config.optimizer.get_jit())
tf.config.optimizer.set_experimental_options({"constant_folding": False, "debug_stripper": True})
print("options:", sorted(tf.config.optimizer.get_experimental_options().items()))
tf.config.experimental.enable_op_determinism()
tf.random.set_seed(1)
print("seeded:", tf.random.uniform([3]).numpy().round(4).tolist())

tf.config.run_functions_eagerly(True)
print("eagerly:", tf.config.functions_run_eagerly())


@tf.function
def fn(x):
    print("Python print runs at each call")
    return x * 2


print(fn(tf.constant(1)).numpy(), fn(tf.constant(2)).numpy())
tf.config.run_functions_eagerly(False)
print(fn(tf.constant(3)).numpy(), fn(tf.constant(4)).numpy())
print("traces:", fn.experimental_get_tracing_count())
tf.config.optimizer.set_jit(False)
print("jit:", tf.config.optimizer.get_jit())
