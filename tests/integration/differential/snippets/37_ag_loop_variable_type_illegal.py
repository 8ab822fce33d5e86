# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/loop_with_variable_type_illegal_cases_test.py (dtype, shape, shape-invariant and structure changes in loops)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim (the test's random calls get a global seed; they only run at trace time here); replaced assertRaisesRegex with prints of the exception type and whether the test's regex matches
import re

import tensorflow as tf

tf.random.set_seed(6)


def while_with_variable_py_type():
    n = tf.constant(0, dtype=tf.int32)
    c = True
    while c:
        c = tf.constant(True)
    return n


def while_with_variable_dtype():
    n = tf.constant(0, dtype=tf.int32)
    while tf.constant(True):
        n = tf.constant(0, dtype=tf.float32)
    return n


def for_with_variable_dtype_and_early_stopping(l):
    n = tf.constant(0, dtype=tf.int32)
    for _ in l:
        n = tf.constant(0, dtype=tf.float32)
        break
    return n


def while_with_variable_shape():
    t = tf.constant([1])
    while tf.constant(True):
        t = tf.constant([1, 1])
    return t


def for_with_shape_erasure(l):
    t = tf.constant([1])
    for _ in l:
        t = tf.range(tf.random.uniform((), 2, 3, dtype=tf.int32))
    return t


def while_with_shape_invariant_violation():
    t = tf.constant([1])
    while tf.constant(True):
        tf.autograph.experimental.set_loop_options(
            shape_invariants=((t, tf.TensorShape([1])),)
        )
        t = tf.range(tf.random.uniform((), 2, 3, dtype=tf.int32))
    return t


def while_with_variable_structure():
    s = {"a": tf.constant(0)}
    while tf.constant(True):
        s = tf.constant(7.0)
    return s


def for_with_variable_structure(l):
    s = [tf.constant(0)]
    for _ in l:
        s = s + [tf.constant(0)]
    return s


cases = (
    (while_with_variable_py_type, (), NotImplementedError,
     r".*condition of while loop started as non\-Tensor, then changed to Tensor.*"),
    (while_with_variable_dtype, (), TypeError,
     "'n' has dtype int32 before the loop, but dtype float32 after"),
    (for_with_variable_dtype_and_early_stopping, (tf.range(3),), TypeError,
     "'n' has dtype int32 before the loop, but dtype float32 after"),
    (while_with_variable_shape, (), ValueError,
     r"'t' has shape \(1,\) before the loop, but shape \(2,\) after"),
    (for_with_shape_erasure, (tf.constant([1, 2, 3]),), ValueError,
     r"'t' has shape \(1,\) before the loop, but shape \(None,\) after"),
    (while_with_shape_invariant_violation, (), ValueError,
     r"'t' has shape \(None,\) after one iteration, which does not conform"),
    (while_with_variable_structure, (), TypeError,
     "'s' does not have the same nested structure"),
    (for_with_variable_structure, (tf.data.Dataset.from_tensor_slices([1, 2, 3]),),
     TypeError, "'s' does not have the same nested structure"),
)
for target, args, exc_type, regex in cases:
    try:
        tf.function(target)(*args)
        print(target.__name__, 'no error')
    except Exception as e:  # pylint: disable=broad-except
        print(target.__name__, 'raised', type(e).__name__,
              '| expected type:', isinstance(e, exc_type),
              '| regex matches:', re.search(regex, str(e), re.DOTALL) is not None)
