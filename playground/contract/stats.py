"""Pure timing arithmetic: timeit-style autorange, median and IQR, noise, break-even calls."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

NOISY_IQR_FRACTION = 0.20


def quartiles(samples: list[float]) -> tuple[float, float, float]:
    if len(samples) == 1:
        return samples[0], samples[0], samples[0]
    q1, q2, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return q1, q2, q3


def median_iqr(samples: list[float]) -> tuple[float, float]:
    q1, q2, q3 = quartiles(samples)
    return q2, q3 - q1


def is_noisy(samples: list[float]) -> bool:
    median, iqr = median_iqr(samples)
    return median > 0 and iqr > NOISY_IQR_FRACTION * median


def calibrate(run_n: Callable[[int], float], min_sample_s: float, max_number: int = 1 << 20) -> int:
    """Like timeit.Timer.autorange: the smallest 1, 2, 5, 10, ... loop count whose sample lasts
    at least min_sample_s, so clock resolution and loop overhead stay small."""
    i = 1
    while True:
        for j in (1, 2, 5):
            number = i * j
            if number >= max_number or run_n(number) >= min_sample_s:
                return number
        i *= 10


def collect(
    run_n: Callable[[int], float],
    number: int,
    budget_s: float,
    *,
    min_samples: int = 5,
    max_samples: int = 200,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Per-call times from repeated samples of `number` calls, within the budget."""
    samples: list[float] = []
    deadline = clock() + budget_s
    while len(samples) < max_samples and (len(samples) < min_samples or clock() < deadline):
        samples.append(run_n(number) / number)
    return samples


def break_even(first_call_s: float, steady_s: float, eager_s: float) -> int | None:
    """Calls after which a traced (or compiled) function has paid back its first-call cost:
    the smallest n with first + (n-1)*steady <= n*eager. None when it never pays back."""
    if steady_s >= eager_s:
        return None
    n = (first_call_s - steady_s) / (eager_s - steady_s)
    return max(1, int(n) + (0 if n == int(n) else 1))


def speedup(baseline: list[float], other: list[float]) -> tuple[float, float, float]:
    """Median speedup of `other` over `baseline`, with a range from the quartiles."""
    b1, b2, b3 = quartiles(baseline)
    o1, o2, o3 = quartiles(other)
    return b2 / o2, b1 / o3, b3 / o1
