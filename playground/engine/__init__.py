"""The analysis engine: runs one Job through TensorFlow and returns a Report.

`pipeline.analyze` is the entry point and reads as the list of steps; each step lives in a module
of its own here. This package's own import is light: TensorFlow loads with the modules that
use it, so the pure ones (`pitfalls`) import and test without it.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # keep C++ info lines out of user output
