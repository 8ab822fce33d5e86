"""The tf.function playground: see what tf.function and AutoGraph really do to your code."""

from typing import Any

__version__ = "0.10.0"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext playground` in Jupyter, Colab or VS Code (playground/jupyter/)."""
    from .jupyter import load_ipython_extension as load

    load(ipython)
