"""Timing-tab helpers on fakes: sweep points with gaps, retrace summaries, GPU peak memory rows."""

from __future__ import annotations

from playground.contract.job import ModeTiming, SweepPoint, Timing
from playground.ui.results import sweep, timing


def fake_timing(points: list[SweepPoint], peak: int | None = None) -> Timing:
    mode = ModeTiming(median_s=1e-4, samples_s=[1e-4], peak_memory_bytes=peak)
    return Timing(eager=mode, graph=mode, xla=None, first_call_s={}, sweep=points, sweep_label="x dim 0")


def test_none_points_are_left_out_of_their_line() -> None:
    points = [SweepPoint(16, 1e-5, 2e-5, None, 1, 1), SweepPoint(64, None, 3e-5, 4e-5, 1, 2)]
    figure = sweep.sweep_figure(fake_timing(points), "GPU:0 (H200)")
    lines = {t.name: (list(t.x), list(t.y)) for t in figure.data}
    assert lines["eager"] == ([16], [10.0]) and lines["xla"] == ([64], [40.0])
    assert lines["graph"][0] == [16, 64]
    assert "GPU:0 (H200)" in figure.layout.title.text
    assert figure.layout.xaxis.type == figure.layout.yaxis.type == "log"


def test_retrace_summary_names_what_happened() -> None:
    every = [SweepPoint(s, 1e-5, 1e-5, None, i + 1) for i, s in enumerate((8, 16, 32))]
    assert "traced again at every new size (3 traces for 3 sizes)" in sweep.retrace_summary(every)
    once = [SweepPoint(s, 1e-5, 1e-5, None, 1) for s in (8, 16, 32)]
    assert "reused one graph for all 3 sizes" in sweep.retrace_summary(once)
    some = [
        SweepPoint(8, 1e-5, 1e-5, None, 1),
        SweepPoint(16, 1e-5, 1e-5, None, 2),
        SweepPoint(32, 1e-5, 1e-5, None, 2),
    ]
    assert sweep.new_traces(some) == [1, 1, 0]
    assert "retraced at 1 of 2 size changes" in sweep.retrace_summary(some)


def test_peak_memory_column_only_when_the_gpu_reported_it() -> None:
    assert "peak GPU memory MiB" not in timing.mode_rows(fake_timing([]), "CPU")[0]
    rows = timing.mode_rows(fake_timing([], peak=3 * 2**20), "GPU:0")
    assert rows[0]["peak GPU memory MiB"] == 3.0 and rows[0]["device"] == "GPU:0"


def test_environment_rows_explain_thread_defaults_and_onednn() -> None:
    rows = timing.environment_rows({"device": "CPU", "intra_op_threads": 0, "onednn": True, "extra": 1})
    shown = {r["setting"]: r["value"] for r in rows}
    assert shown == {
        "Device": "CPU",
        "oneDNN": "on",
        "intra-op threads": "0 (TF default: all cores)",
        "extra": "1",
    }


def test_speedup_shows_its_quartile_range():
    from playground.contract.job import ModeTiming, Timing
    from playground.ui.results.timing import range_text

    t = Timing(
        eager=ModeTiming(2.0, [2.0]),
        graph=ModeTiming(1.0, [1.0]),
        xla=None,
        first_call_s={},
        speedup_graph=2.0,
        speedup_range={"graph": [1.5, 2.5]},
    )
    assert range_text(t, "graph") == "range 1.50–2.50× (quartiles)"
    assert range_text(t, "xla") == ""  # no range recorded: the metric shows the ratio alone
