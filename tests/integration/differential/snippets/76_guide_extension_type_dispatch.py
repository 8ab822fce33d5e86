# origin: tensorflow/docs site/en/guide/extension_type.ipynb ("Dispatch for binary and list APIs", "tf.stack")
# licence: Apache-2.0, Copyright The TensorFlow Authors
# adapted: the guide's MaskedTensor and its dispatch over List[MaskedTensor], with prints of the
#   result and of the class annotations that dispatch and the type read (objects, not strings)
from typing import List

import tensorflow as tf


class MaskedTensor(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor


@tf.experimental.dispatch_for_api(tf.stack)
def masked_stack(values: List[MaskedTensor], axis=0):
    return MaskedTensor(tf.stack([v.values for v in values], axis),
                        tf.stack([v.mask for v in values], axis))


x = MaskedTensor([1, 2, 3], [True, True, False])
y = MaskedTensor([4, 5, 6], [False, True, True])
stacked = tf.stack([x, y])
print(stacked.values.numpy().tolist())
print(stacked.mask.numpy().tolist())
print(MaskedTensor.__annotations__)
