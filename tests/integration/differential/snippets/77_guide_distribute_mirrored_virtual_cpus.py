# origin: tensorflow/docs site/en/guide/distributed_training.ipynb ("MirroredStrategy"), and tensorflow/tensorflow tensorflow/python/framework/config.py (docstring of tf.config.set_logical_device_configuration)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: the docstring's two virtual CPUs (its bare `except: pass` prints the error instead, so
#   a failure shows), then the guide's MirroredStrategy over them running a tf.function step
import tensorflow as tf

physical_devices = tf.config.list_physical_devices("CPU")
assert len(physical_devices) == 1, "No CPUs found"
try:
    tf.config.set_logical_device_configuration(
        physical_devices[0],
        [tf.config.LogicalDeviceConfiguration(),
         tf.config.LogicalDeviceConfiguration()])
    logical_devices = tf.config.list_logical_devices("CPU")
    print("logical CPUs:", [d.name for d in logical_devices])
    # Cannot modify logical devices once initialized.
    tf.config.set_logical_device_configuration(
        physical_devices[0], [tf.config.LogicalDeviceConfiguration()] * 4)
except RuntimeError as e:
    print("RuntimeError:", e)

strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
print("Number of devices: {}".format(strategy.num_replicas_in_sync))


@tf.function
def step(x):
    return x * 2.0 + 1.0


print(strategy.run(step, args=(tf.constant(3.0),)))
with strategy.scope():
    v = tf.Variable(1.0)
print(type(v).__name__, v.values[0].device, v.values[1].device)
print("traces:", step.experimental_get_tracing_count())
