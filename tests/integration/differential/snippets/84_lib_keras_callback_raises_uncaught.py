# origin: tensorflow/docs site/en/guide/keras/custom_callback.ipynb ("Writing your own callbacks": on_epoch_end)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: a callback whose on_epoch_end calls a tf.function of its own and raises after the second epoch, inside model.fit, left uncaught on purpose (exit code 1)
import numpy as np
import tensorflow as tf
import keras


@tf.function
def weight_norm(w):
    return tf.norm(w)


class StopWithAnError(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("epoch", epoch, "norm is finite:", bool(tf.math.is_finite(weight_norm(self.model.weights[0]))))
        if epoch == 1:
            raise RuntimeError("stopped at epoch 1")


model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((8, 2)), np.ones((8, 1)), epochs=3, batch_size=4, verbose=0, callbacks=[StopWithAnError()])
print("not reached")
