# origin: tensorflow/docs site/en/guide/gpu.ipynb ("Limiting GPU memory growth", "Using a single GPU on a multi-GPU system"), and tensorflow/tensorflow tensorflow/python/framework/config.py (docstrings of tf.config.set_visible_devices and tf.config.experimental.set_memory_growth)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: the guide's first-line GPU set-up, which is a no-op on a machine without a GPU (as
#   here), then set_visible_devices on the CPU's own list and memory growth on a CPU, each
#   printing what TF answers instead of the docstrings' bare `except: pass`
import tensorflow as tf

gpus = tf.config.list_physical_devices("GPU")
if gpus:
    try:
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        tf.config.set_visible_devices(gpus[0], "GPU")
        logical_gpus = tf.config.list_logical_devices("GPU")
        print(len(gpus), "Physical GPUs,", len(logical_gpus), "Logical GPU")
    except RuntimeError as e:
        # Memory growth must be set before GPUs have been initialized
        print(e)
print("GPUs:", len(gpus))

cpus = tf.config.list_physical_devices("CPU")
tf.config.set_visible_devices(cpus, "CPU")
tf.config.set_visible_devices([], "GPU")
print("visible:", [d.device_type for d in tf.config.get_visible_devices()])
try:
    tf.config.experimental.set_memory_growth(cpus[0], True)
except (ValueError, RuntimeError) as e:
    print(type(e).__name__, e)
print("logical:", [d.name for d in tf.config.list_logical_devices()])
try:
    tf.config.set_visible_devices(cpus, "CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
except RuntimeError as e:
    print("RuntimeError:", e)
