# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/logical_expression_test.py
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the functions verbatim; replaced assertFunctionMatchesEager with prints of eager and tf.function results for Python bools/ints and for bool/int tensors, and ran the equality cases with Feature.EQUALITY_OPERATORS as test_equality_tensor does
import tensorflow as tf


def composite_ors_with_callable(x, y, z):
    z1 = lambda: z
    return x or y or z1()


def composite_ors(x, y, z):
    return x or y or z


def composite_ands(x, y, z):
    return x and y and z


def composite_mixed(x, y, z):
    return x or y or z and y and z


def equality(x, y):
    return x == y


def inequality(x, y):
    return x != y


def multiple_equality(x, y, z):
    return x == y == z


def comparison(x, y, z):
    return x < y and y < z


def show(value):
    return value.numpy() if hasattr(value, 'numpy') else value


def check(f, args, opts=None):
    tensors = [tf.constant(a) for a in args]
    graph = tf.function(f, experimental_autograph_options=opts)
    print(f.__name__, args, 'eager:', show(f(*args)), 'graph:', show(graph(*args)),
          '| tensors eager:', show(f(*tensors)), 'graph:', show(graph(*tensors)))


check(composite_ors, (False, True, False))
check(composite_ors, (False, False, False))
check(composite_ands, (True, True, True))
check(composite_ands, (True, False, True))
check(composite_mixed, (False, True, True))
check(composite_ors_with_callable, (False, False, True))
check(comparison, (1, 2, 3))
check(comparison, (3, 1, 2))
opts = tf.autograph.experimental.Feature.EQUALITY_OPERATORS
check(equality, (1, 2), opts)
check(inequality, (1, 2), opts)
check(multiple_equality, (1, 1, 1), opts)
check(multiple_equality, (1, 1, 2), opts)
