# origin: tensorflow/tensorflow tensorflow/python/autograph/tests/call_to_named_tuple_test.py
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: kept the functions verbatim (the test imports tensorflow.compat.v1 as tf; plain tensorflow here); replaced assertFunctionMatchesEager with prints of eager and tf.function results
import collections

import tensorflow as tf


def inline_namedtuple(x):
  nt = collections.namedtuple('TestNamedTuple', ('a', 'b'))
  n = nt(a=1, b=x)
  return n


def external_namedtuple(x, nt):
  return nt(a=1, b=x)


class NamedTupleSubclass(collections.namedtuple('TestNamedTuple', ('a',))):

  def foo(self):
    return self.a + 1


def namedtuple_subclass(x):
  nt = NamedTupleSubclass(x)
  return nt.foo()


def show(value):
  if isinstance(value, tuple):
    return type(value).__name__ + str(tuple(show(v) for v in value))
  return value.numpy() if hasattr(value, 'numpy') else value


nt = collections.namedtuple('TestNamedTuple', ('a', 'b'))
for x in (1, tf.constant(1)):
  print('inline  eager:', show(inline_namedtuple(x)),
        'graph:', show(tf.function(inline_namedtuple)(x)))
  print('external eager:', show(external_namedtuple(x, nt)),
        'graph:', show(tf.function(external_namedtuple)(x, nt)))
  print('subclass eager:', show(namedtuple_subclass(x)),
        'graph:', show(tf.function(namedtuple_subclass)(x)))
