"""Times eager vs graph vs XLA honestly: first call (trace, compile) apart from steady state,
autorange repeats within a budget, the device synchronised before every clock read."""

from __future__ import annotations

import dataclasses
import gc
import time
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from ..contract import stats
from ..contract.i18n import _
from ..contract.job import ModeTiming, SweepPoint, Timing
from ..contract.reasons import mode_name

MIN_SAMPLE_S = 0.002


def device_sync(device: str) -> Callable[[], None]:
    if device.upper().startswith("GPU") or "/GPU" in device.upper():
        return tf.test.experimental.sync_devices
    return lambda: None  # CPU ops have finished when the call returns


def peak_memory_meter(device: str) -> Callable[[], Callable[[], int | None]]:
    """On a GPU: resets the peak counter and returns a reader of the peak since then."""
    if "GPU" not in device.upper():
        return lambda: lambda: None
    name = device.strip("/").upper().replace("DEVICE:", "")

    def start() -> Callable[[], int | None]:
        tf.config.experimental.reset_memory_stats(name)
        return lambda: int(tf.config.experimental.get_memory_info(name)["peak"])

    return start


def time_mode(
    call: Callable[[], Any],
    budget_s: float,
    sync: Callable[[], None],
    prepare: Callable[[], Any] | None = None,
) -> tuple[ModeTiming, float, float]:
    """Returns (timing, trace_s, first_run_s). `prepare` traces without running (graph, XLA)."""
    sync()
    t0 = time.perf_counter()
    if prepare is not None:
        prepare()
    trace_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    keep = call()
    sync()
    first_run_s = time.perf_counter() - t1

    def run_n(n: int) -> float:
        nonlocal keep
        sync()
        collecting = gc.isenabled()
        gc.disable()  # as timeit does: a collection landing in one mode's samples is noise
        try:
            start = time.perf_counter()
            for _ in range(n):
                keep = call()  # keep the output alive so no work can be skipped
            sync()
            return time.perf_counter() - start
        finally:
            if collecting:
                gc.enable()

    number = stats.calibrate(run_n, MIN_SAMPLE_S)
    samples = stats.collect(run_n, number, budget_s)
    median, iqr = stats.median_iqr(samples)
    del keep
    return (
        ModeTiming(
            median_s=median,
            samples_s=samples,
            iqr_s=iqr,
            first_call_s=trace_s + first_run_s,
            noisy=stats.is_noisy(samples),
        ),
        trace_s,
        first_run_s,
    )


def measure(
    python_function: Callable,
    options: dict,
    args: list,
    kwargs: dict,
    *,
    budget_s: float,
    device: str,
    xla: bool = True,
    progress: Callable[[str, float], None] = lambda mode, done: None,
) -> Timing:
    sync = device_sync(device)
    meter = peak_memory_meter(device)
    modes = ["eager", "graph"] + (["xla"] if xla else [])
    share = budget_s / len(modes)
    results: dict[str, ModeTiming] = {}
    phases: dict[str, dict[str, float]] = {}
    notes: list[str] = []
    for i, mode in enumerate(modes):
        progress(mode, i / len(modes))
        if mode == "eager":
            fn: Callable = python_function
            prepare = None
        else:
            fn = tf.function(python_function, **{**options, "jit_compile": mode == "xla"})

            def prepare(f=fn):
                return f.get_concrete_function(*args, **kwargs)

        def timed_call(f: Callable = fn) -> Any:  # a def: mypy cannot type a lambda's defaults
            return f(*args, **kwargs)

        try:
            peak = meter()
            timing, trace_s, first_run_s = time_mode(timed_call, share, sync, prepare)
            timing = dataclasses.replace(timing, peak_memory_bytes=peak())
        except Exception as e:  # noqa: BLE001 - a failing mode is noted; the others are still timed
            notes.append(
                _("{mode}: {note}").format(
                    mode=mode_name(mode),
                    note=_("could not be timed: {error}").format(error=f"{type(e).__name__}: {str(e)[:200]}"),
                )
            )
            continue
        results[mode] = timing
        phases[mode] = {
            "trace_s": trace_s,
            "compile_s": max(0.0, first_run_s - timing.median_s) if mode == "xla" else 0.0,
            "run_s": timing.median_s if mode == "xla" else first_run_s,
        }
    progress("done", 1.0)
    eager, graph = results.get("eager"), results.get("graph")
    if eager is None or graph is None:
        raise RuntimeError("; ".join(notes) or "timing failed")
    xla_t = results.get("xla")
    for mode, t in results.items():
        if t.noisy:
            notes.append(
                _("{mode}: {note}").format(
                    mode=mode_name(mode), note=_("noisy: IQR > 20% of median; rerun or raise the budget")
                )
            )

    return Timing(
        eager=eager,
        graph=graph,
        xla=xla_t,
        first_call_s={
            "eager": eager.first_call_s,
            "graph": graph.first_call_s,
            "xla": xla_t.first_call_s if xla_t else None,
        },
        speedup_graph=eager.median_s / graph.median_s,
        speedup_xla=eager.median_s / xla_t.median_s if xla_t else None,
        # From the quartiles: slowest eager over fastest other, and the reverse.
        speedup_range={
            m: list(stats.speedup(eager.samples_s, results[m].samples_s)[1:]) for m in results if m != "eager"
        },
        break_even_calls={
            m: stats.break_even(results[m].first_call_s, results[m].median_s, eager.median_s)
            for m in results
            if m != "eager"
        },
        phases=phases,
        notes=notes,
    )


def sweep(
    python_function: Callable,
    options: dict,
    calls: list[tuple[int, list, dict]],
    *,
    budget_s: float,
    device: str,
    xla: bool = True,
) -> list[SweepPoint]:
    """Time per call against size. One graph (and one XLA) instance serves every size, so its
    tracing count shows whether each size retraced under the chosen options."""
    sync = device_sync(device)
    graph_fn = tf.function(python_function, **{**options, "jit_compile": False})
    xla_fn = tf.function(python_function, **{**options, "jit_compile": True}) if xla else None
    share = budget_s / max(1, len(calls)) / (3 if xla else 2)
    points = []
    for size, args, kwargs in calls:
        medians: dict[str, float | None] = {}
        for mode, fn in (("eager", python_function), ("graph", graph_fn), ("xla", xla_fn)):
            if fn is None:
                medians[mode] = None
                continue

            def timed_call(f: Callable = fn, a: list = args, k: dict = kwargs) -> Any:
                return f(*a, **k)

            try:
                measured, _, _ = time_mode(timed_call, share, sync)
                medians[mode] = measured.median_s
            except Exception:  # noqa: BLE001 - e.g. XLA cannot compile this size: leave the point out
                medians[mode] = None
        points.append(
            SweepPoint(
                size=size,
                eager_s=medians["eager"],
                graph_s=medians["graph"],
                xla_s=medians["xla"],
                graph_traces=int(graph_fn.experimental_get_tracing_count()),
                xla_traces=int(xla_fn.experimental_get_tracing_count()) if xla_fn else None,
            )
        )
    return points
