# origin: tensorflow/docs site/en/guide/function.ipynb ("Use the tracing protocol" section)
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: added the import, printed the results and the tracing count after each pair of calls; on TF 2.21 the guide's FruitTraceType lacks the now-abstract placeholder_value, so the script ends with an uncaught TypeError (exit code 1)
import tensorflow as tf


@tf.function
def get_mixed_flavor(fruit_a, fruit_b):
  return fruit_a.flavor + fruit_b.flavor

class Fruit:
  flavor = tf.constant([0, 0])

class Apple(Fruit):
  flavor = tf.constant([1, 2])

class Mango(Fruit):
  flavor = tf.constant([3, 4])

# As described in the above rules, a generic TraceType for `Apple` and `Mango`
# is generated (and a corresponding ConcreteFunction is traced) but it fails to
# match the second function call since the first pair of Apple() and Mango()
# have gone out out of scope by then and deleted.
print(get_mixed_flavor(Apple(), Mango()).numpy()) # Traces a new concrete function
print(get_mixed_flavor(Apple(), Mango()).numpy()) # Traces a new concrete function again
print('tracing count:', get_mixed_flavor.experimental_get_tracing_count())

# However, each subclass of the `Fruit` class has a fixed flavor, and you
# can reuse an existing traced concrete function if it was the same
# subclass. Avoiding such unnecessary tracing of concrete functions
# can have significant performance benefits.

class FruitTraceType(tf.types.experimental.TraceType):
  def __init__(self, fruit_type):
    self.fruit_type = fruit_type

  def is_subtype_of(self, other):
      return (type(other) is FruitTraceType and
              self.fruit_type is other.fruit_type)

  def most_specific_common_supertype(self, others):
      return self if all(self == other for other in others) else None

  def __eq__(self, other):
    return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

  def __hash__(self):
    return hash(self.fruit_type)

class FruitWithTraceType:

  def __tf_tracing_type__(self, context):
    return FruitTraceType(type(self))

class AppleWithTraceType(FruitWithTraceType):
  flavor = tf.constant([1, 2])

class MangoWithTraceType(FruitWithTraceType):
  flavor = tf.constant([3, 4])

# Now if you try calling it again:
print(get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType()).numpy()) # Traces a new concrete function
print(get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType()).numpy()) # Re-uses the traced concrete function
print('tracing count:', get_mixed_flavor.experimental_get_tracing_count())
