"""The tf.function playground: see what tf.function and AutoGraph really do to your code."""
