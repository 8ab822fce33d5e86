# origin: tensorflow/tensorflow tensorflow/python/eager/def_function_test.py (test_functools_partial, test_functools_partial_new_default, test_functools_partial_single_positional, test_unspecified_default_argument, testVarAlreadyInitializedNoClobbering, testInitializationInNestedCall, testUnderscoreName)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added import tensorflow as tf and the imports the kept tests need (def_function is still importable in TF 2.21); kept the function bodies verbatim and turned the assertions into prints of the values
import functools

import tensorflow as tf  # pylint: disable=unused-import
from tensorflow.python.eager import def_function
from tensorflow.python.framework import constant_op
from tensorflow.python.framework import dtypes
from tensorflow.python.framework import ops
from tensorflow.python.framework import tensor_spec
from tensorflow.python.ops import variables

print('partial:', def_function.function(functools.partial(lambda x, y: x + y, 1.))(
    constant_op.constant(2.)).numpy())


def f(x=3, y=7):
  return x + y

func = def_function.function(functools.partial(f, y=6))
print('partial new default:', func().numpy(), func(y=8).numpy())


def f2(x, y):
  return x + y

func = def_function.function(
    functools.partial(f2, constant_op.constant(1)))
print('partial single positional:', func(5).numpy())

wrapped = def_function.function(
    lambda x, y=2: x + y,
    input_signature=[tensor_spec.TensorSpec((), dtypes.int32)])
print('unspecified default argument:', wrapped(constant_op.constant(1)).numpy())

v_holder = []

@def_function.function
def add_var(x):
  if not v_holder:
    v = variables.Variable([1., 2.])
    v_holder.append(v)
    already_initialized = variables.Variable(3.)
    with ops.init_scope():
      already_initialized.assign(10.)
    v_holder.append(already_initialized)
  return v_holder[0] + v_holder[1] + x

@def_function.function
def wrapper(x):
  return add_var(x)

print('nested initialization:', wrapper(constant_op.constant(2.)).numpy())
v_holder[1].assign(11.)
print('after assign(11.):', wrapper(constant_op.constant(2.)).numpy())


@def_function.function
def g(_):
  return _ + _

print('underscore name:', g(constant_op.constant(1.0)).numpy())
