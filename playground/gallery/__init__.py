"""The examples gallery: one example per point of the seed article, each with what the article
claims and a machine-checkable expectation compared with the live run, never assumed.

Pure data and arithmetic (no TensorFlow), shared by the app, the CLI and the tests.
"""

from __future__ import annotations

from .examples import EXAMPLES
from .model import ClaimCheck, Example, Expectation, check, first_error_type

BY_SLUG = {e.slug: e for e in EXAMPLES}

__all__ = ["BY_SLUG", "EXAMPLES", "ClaimCheck", "Example", "Expectation", "check", "first_error_type"]
