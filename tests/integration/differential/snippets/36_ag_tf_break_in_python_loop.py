# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/loop_control_flow_illegal_cases_test.py (tf_break_in_py_for, tf_return_in_py_for, tf_break_in_py_while, tf_return_in_py_while)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim; replaced assertRaisesRegex with try/except printing the exception type and whether the test's message appears
import tensorflow as tf


def tf_break_in_py_for(l):
    s = 0
    for c in l:
        if tf.greater(c % 2, 0):
            break
        s += c
    return s


def tf_return_in_py_for(l):
    s = 0
    for c in l:
        if tf.greater(c % 2, 0):
            return s
        else:
            return s
        s += c
    return s


def tf_break_in_py_while(x):
    s = 0
    while x > 0:
        x -= 1
        if tf.greater(x % 2, 0):
            break
        s += x
    return s


def tf_return_in_py_while(x):
    s = 0
    while x > 0:
        x -= 1
        if tf.greater(x % 2, 0):
            return s
        else:
            return s
        s += x
    return s


for target, arg, msg in (
    (tf_break_in_py_for, [1, 2], 'not supported in Python for'),
    (tf_return_in_py_for, [1, 2], 'not supported in Python for'),
    (tf_break_in_py_while, 3, 'condition of while loop started as non-Tensor, then changed to Tensor'),
    (tf_return_in_py_while, 3, 'condition of while loop started as non-Tensor, then changed to Tensor'),
):
    try:
        tf.function(target)(arg)
        print(target.__name__, 'no error')
    except NotImplementedError as e:
        print(target.__name__, 'raised', type(e).__name__, '| message found:', msg in str(e))
    result = target(arg)
    print('  plain Python:', result.numpy() if hasattr(result, 'numpy') else result)
