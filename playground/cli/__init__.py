"""The command line, `python -m playground ...`: parsing (main), running a job (execute), and
the text a terminal shows (render_text, and render_compare for --compare)."""

from .main import main

__all__ = ["main"]
