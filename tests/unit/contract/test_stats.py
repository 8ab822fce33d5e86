"""Timing arithmetic with deterministic fakes: quartiles, noise, autorange, break-even."""

from __future__ import annotations

import pytest

from playground.contract import stats


def test_median_and_iqr():
    median, iqr = stats.median_iqr([1.0, 2.0, 3.0, 4.0, 5.0])
    assert median == 3.0 and iqr == 2.0


def test_noise_flag_uses_twenty_percent_of_median():
    assert not stats.is_noisy([1.0, 1.05, 1.1, 1.0, 0.95])
    assert stats.is_noisy([1.0, 2.0, 3.0, 4.0, 5.0])


def test_calibrate_picks_first_count_reaching_min_duration():
    per_call = 1e-4
    seen = []

    def run_n(n):
        seen.append(n)
        return n * per_call

    assert stats.calibrate(run_n, min_sample_s=0.002) == 20
    assert seen == [1, 2, 5, 10, 20]


def test_collect_stops_at_budget_after_min_samples():
    now = [0.0]

    def clock():
        return now[0]

    def run_n(n):
        now[0] += 0.1
        return 0.1

    samples = stats.collect(run_n, 1, budget_s=0.35, clock=clock)
    assert len(samples) == 5  # the minimum, though the budget allowed ~4
    samples = stats.collect(run_n, 1, budget_s=1.0, clock=clock, min_samples=1)
    assert len(samples) == 10


@pytest.mark.parametrize(
    "first, steady, eager, expected",
    [
        (0.010, 0.001, 0.002, 9),  # 10ms + 8*1ms = 18ms <= 9*2ms = 18ms
        (0.0015, 0.001, 0.002, 1),  # the first call already beats eager
        (0.010, 0.002, 0.002, None),  # never pays back
    ],
)
def test_break_even(first, steady, eager, expected):
    assert stats.break_even(first, steady, eager) == expected
    if expected:
        n = expected
        assert first + (n - 1) * steady <= n * eager + 1e-12
        assert n == 1 or first + (n - 2) * steady > (n - 1) * eager


def test_speedup_range_brackets_median():
    mid, low, high = stats.speedup([2.0, 2.0, 2.0], [1.0, 1.0, 1.0])
    assert (mid, low, high) == (2.0, 2.0, 2.0)
    mid, low, high = stats.speedup([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])
    assert low <= mid <= high


def test_speedup_range_is_from_opposite_quartiles():
    eager = [1.0, 2.0, 3.0, 4.0, 5.0]  # q1 2, median 3, q3 4
    graph = [0.5, 1.0, 1.5, 2.0, 2.5]  # q1 1, median 1.5, q3 2
    assert stats.speedup(eager, graph) == (2.0, 1.0, 4.0)
