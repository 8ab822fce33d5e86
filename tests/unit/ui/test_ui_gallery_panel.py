"""The example's panel speaks of code still based on it, and of no one else's."""

from __future__ import annotations

from playground import gallery
from playground.ui.editor import based_on


def test_an_example_edited_is_still_based_on_it() -> None:
    example = gallery.BY_SLUG["retracing"]
    assert example.function
    edited = example.source.replace("return", "y = 1\n    return", 1)
    assert edited != example.source and based_on(example, edited)


def test_code_of_ones_own_is_not_based_on_the_example() -> None:
    pasted = "import tensorflow as tf\n\n\n@tf.function\ndef spin(x):\n    while True:\n        pass\n"
    assert not any(based_on(e, pasted) for e in gallery.EXAMPLES if e.function != "spin")


def test_a_script_example_is_judged_by_how_much_of_it_is_left() -> None:
    script = next(e for e in gallery.EXAMPLES if not e.function)
    assert based_on(script, script.source + "\nprint('one more line')\n")
    assert not based_on(script, "print('hello')\n")
