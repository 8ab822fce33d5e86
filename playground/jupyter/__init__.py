"""The IPython extension: `%load_ext playground` registers %%tf_playground and
%tf_playground_explain (magic.py), whose reports show inline as rich HTML (view.py)."""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    from .magic import PlaygroundMagics

    ipython.register_magics(PlaygroundMagics)
