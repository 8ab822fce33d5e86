"""The tf.function playground: see what tf.function and AutoGraph really do to your code."""

from typing import Any

__version__ = "0.10.0"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext playground` in Jupyter, Colab or VS Code (playground/jupyter/)."""
    from .jupyter import load_ipython_extension as load

    load(ipython)


def watch(*args: Any, **kwargs: Any) -> Any:
    """`with playground.watch("report.html"):` records every tf.function the block makes or
    calls, libraries' too, and writes a report of each trace and why (playground/trace.py)."""
    from .trace import watch as watching

    return watching(*args, **kwargs)
