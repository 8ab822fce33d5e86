# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/call_to_print_function_test.py
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the functions verbatim; called each one eagerly and through tf.function with Feature.BUILTIN_FUNCTIONS as the test's setUp does, printing a marker line before each call instead of comparing captured output
import numpy as np
import tensorflow as tf


def lone_print(x):
    print(x)


def print_multiple_values(x):
    print("x is", x)


def multiple_prints(x, y):
    tf.print("x is", x)
    tf.print("y is", y)


def print_with_nontf_values(x):
    print("x is", x, {"foo": "bar"})


def print_in_cond(x):
    if x == 0:
        print(x)


def tf_print(x):
    tf.print(x)


opts = tf.autograph.experimental.Feature.BUILTIN_FUNCTIONS
for f, args in (
    (lone_print, (1,)),
    (lone_print, (np.array([1, 2, 3]),)),
    (print_multiple_values, (np.array([1, 2, 3]),)),
    (multiple_prints, (np.array([1, 2, 3]), 4)),
    (print_with_nontf_values, (1,)),
    (print_in_cond, (0,)),
    (print_in_cond, (1,)),
    (tf_print, (0,)),
):
    print('>>> eager', f.__name__)
    f(*args)
    print('>>> tf.function', f.__name__)
    tf.function(f, experimental_autograph_options=opts)(*args)
