"""The tf.function playground: see what tf.function and AutoGraph really do to your code."""

__version__ = "0.9.0"


def load_ipython_extension(ipython):  # type: ignore[no-untyped-def]
    """`%load_ext playground` in Jupyter, Colab or VS Code (playground/jupyter/)."""
    from .jupyter import load_ipython_extension as load

    load(ipython)
