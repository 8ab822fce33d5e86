"""reports/figures.py: axes a reader reads right (pure plotly, no Streamlit)."""

from __future__ import annotations

import pytest

from playground.reports.figures import count_axis


@pytest.mark.parametrize(("largest", "step"), [(1, 1), (3, 1), (5, 1), (7, 2), (112, 23)])
def test_a_count_axis_has_whole_number_ticks_from_zero(largest: int, step: int) -> None:
    axis = count_axis(largest)
    assert axis == {"rangemode": "tozero", "dtick": step, "tickformat": "d"}
    assert largest / axis["dtick"] <= 5  # about five ticks, never 0.5 steps


@pytest.mark.parametrize(
    ("ratio", "words"), [(3.14159, "3.1× faster"), (1.0, "1.0× faster"), (0.24, "4.2× slower")]
)
def test_a_ratio_is_said_as_faster_or_slower(ratio: float, words: str) -> None:
    from playground.reports.figures import ratio_words

    assert ratio_words(ratio) == words
