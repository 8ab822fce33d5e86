# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/call_to_builtin_function_test.py
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the functions verbatim (len_call_on_mock dropped); replaced assertFunctionMatchesEager with prints of eager and tf.function results, with Python and tensor inputs as test_basic and test_basic_tensor do (including the empty list / empty tensor case)
import tensorflow as tf


# TODO(mdan): Add tests for all builtins.


def dict_call(x):
    return dict(foo=x)


def dict_call_aliased(x):
    def fake_dict(x):
        return x

    dict = fake_dict  # pylint:disable=redefined-builtin
    return dict(x)


def dict_call_dynamic(x):
    def gen_dict():
        return dict

    d = gen_dict()
    return d(foo=x)


def len_call(x):
    return len(x)


def nested_call(x):
    return list(range(len(x)))


def len_call_aliased(x):
    def fake_len(x):
        return x

    len = fake_len  # pylint:disable=redefined-builtin
    return len(x)


def len_call_dynamic(x):
    def gen_len():
        return len

    l = gen_len()
    return l(x)


def show(value):
    return tf.nest.map_structure(
        lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, value)


for f, arg in ((dict_call, 1), (len_call, [1, 2]), (dict_call_aliased, 1),
               (len_call_aliased, [1, 2]), (dict_call_dynamic, 1),
               (len_call_dynamic, [1, 2]), (nested_call, []), (nested_call, [1, 2, 3])):
    t = tf.constant(arg)
    print(f.__name__, arg, 'eager:', show(f(arg)), 'graph:', show(tf.function(f)(arg)),
          '| tensor', t.dtype.name, t.shape, 'eager:', show(f(t)), 'graph:', show(tf.function(f)(t)))
