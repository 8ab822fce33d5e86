# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/loop_control_flow_test.py (continue/break/return in single and nested loops)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the function bodies verbatim; replaced the parameterized assertFunctionMatchesEager checks with prints of eager and tf.function results for some of the test's inputs (list, tensor, dataset)
import tensorflow as tf


def continue_in_single_for(l):
    s = 0
    for c in l:
        if c % 2 > 0:
            continue
        s += c
    return s


def continue_in_single_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            continue
        s += x
    return s


def break_in_single_for(l):
    s = 0
    for c in l:
        if c % 2 > 0:
            break
        s += c
    return s


def effectively_unconditional_return_in_single_for(l):
    s = 0
    for c in l:
        s += c
        if c % 2 > 0:
            return s
        else:
            return -s
    return s


def break_in_inner_while(x, y):
    s = 0
    while x > 0:
        x -= 1
        while y > 0:
            y -= 1
            if ((x + y) % 2) == 0:
                break
            s += x + y
    return s


def break_continue_in_inner_for(m):
    s = 0
    for l in m:
        for c in l:
            if c % 2 > 0:
                break
            else:
                continue
            s += c
    return s


def multiple_breaks_in_single_while(n):
    s = 1
    i = 0
    while i < n:
        i += 1
        if i > 10 * n:
            break
        if i == n:
            break
        s = s * 10 + i
    return i, s


def _int_tensor(x):
    return tf.constant(x, dtype=tf.int32)


def _int_dataset(l):
    return tf.data.Dataset.from_tensor_slices(tf.constant(l, dtype=tf.int32))


def show(value):
    return tf.nest.map_structure(
        lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, value)


def check(f, *args):
    print(f.__name__, 'eager:', show(f(*args)), 'graph:', show(tf.function(f)(*args)))


l = [2, 4, 5, 6]
for type_ in (list, _int_tensor, _int_dataset):
    check(continue_in_single_for, type_(l))
check(break_in_single_for, _int_tensor(l))
check(effectively_unconditional_return_in_single_for, _int_tensor(l))
check(continue_in_single_while, _int_tensor(4))
for n in (0, 4):
    check(multiple_breaks_in_single_while, _int_tensor(n))
check(break_in_inner_while, _int_tensor(3), _int_tensor(4))
check(break_continue_in_inner_for, _int_tensor([[1, 2], [4, 5]]))
try:
    tf.function(effectively_unconditional_return_in_single_for)(_int_tensor([]))
except tf.errors.InvalidArgumentError as e:
    print('empty tensor raised InvalidArgumentError:',
          'must iterate at least once to initialize' in str(e))
