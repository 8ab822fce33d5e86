"""TensorFlow facts that changed between supported versions, so the engine tests can run on each
installed version (tests/integration/test_versions.py runs them with an extra version's interpreter).

Measured with `python -m playground claims` and these tests on TF 2.12.1, 2.15.1 and 2.21.0;
2.13 and 2.14 were not measured, and take the 2.15 side here.
"""

from __future__ import annotations

import tensorflow as tf

VERSION = tuple(int(p) for p in tf.__version__.split(".")[:2])
OLD = VERSION < (2, 13)

# A call that does not fit the input_signature: "Binding inputs to tf.function failed".
BINDING_ERROR = "ValueError" if OLD else "TypeError"
BINDING_MESSAGE = (
    "Python inputs incompatible with input_signature" if OLD else "Binding inputs to tf.function failed"
)
# The class of a tensor while tracing, as AttributeError messages name it.
GRAPH_TENSOR = "'Tensor'" if OLD else "'SymbolicTensor'"
# Gallery examples whose (2.21-measured) claim checks do not hold on this version.
GALLERY_DIFFERS = {"signature-mismatch"} if OLD else set()
# The engine's stand-ins for private APIs this version lacks (playground/engine/compat.py).
FALLBACKS = {"function cache", "trace types", "concrete signatures"} if OLD else set()
