"""Compare mode's data side: spec parsing, side b's Job, and differences of real sandboxed runs."""

from __future__ import annotations

import dataclasses

import pytest
from sandbox_support import pool  # noqa: F401 - fixture: a warm sandbox pool per module

from playground import gallery
from playground.contract.errors import SpecError
from playground.contract.job import Job
from playground.reports import compare
from playground.reports.compare import CompareSpec

MANY_SHAPES = gallery.BY_SLUG["many-shapes"]  # total(x), shapes [1] to [4]
LABEL = (
    "import tensorflow as tf\n\n@tf.function\ndef label(x):\n"
    "    return tf.strings.reduce_join(tf.strings.as_string(x), separator=',')\n"
)


@pytest.mark.parametrize(
    "text, spec",
    [
        ("tf=2.15.1", CompareSpec("tf", "2.15.1")),
        ("tf=default", CompareSpec("tf", "")),
        (" tf = 2.18 ", CompareSpec("tf", "2.18")),
        ("reduce_retracing", CompareSpec("reduce_retracing", None)),
        ("experimental_relax_shapes", CompareSpec("reduce_retracing", None)),
        ("reduce_retracing=off", CompareSpec("reduce_retracing", False)),
        ("jit_compile", CompareSpec("jit_compile", None)),
        ("jit_compile=On", CompareSpec("jit_compile", True)),
        ("signature=float32[None]", CompareSpec("signature", "float32[None]")),
        ("signature=float32[?, 3],int32[]", CompareSpec("signature", "float32[None,3], int32[]")),
        ("signature=", CompareSpec("signature", "")),
    ],
)
def test_accepted_specs(text, spec):
    assert compare.parse(text) == spec


@pytest.mark.parametrize(
    "text, problem",
    [
        ("reduce", "unknown option 'reduce'"),
        ("", "unknown option ''"),
        ("tf=", "'' is not a TensorFlow version"),
        ("tf=latest", "'latest' is not a TensorFlow version"),
        ("jit_compile=maybe", "jit_compile takes on or off, got 'maybe'"),
        ("signature", "the signature is missing"),
        ("signature=float32[None", "unclosed bracket"),
        ("signature=flaot32[None]", "did you mean float32?"),
    ],
)
def test_malformed_specs_name_the_problem_and_the_accepted_forms(text, problem):
    with pytest.raises(SpecError) as raised:
        compare.parse(text)
    message = str(raised.value)
    assert problem in message and "accepted: tf=VERSION" in message
    assert len(message.splitlines()) == 1


def test_side_b_changes_one_thing():
    job = MANY_SHAPES.job()
    assert compare.side_b(job, compare.parse("reduce_retracing")) == dataclasses.replace(
        job, reduce_retracing=True
    )
    flipped_back = dataclasses.replace(job, jit_compile=True)
    assert compare.side_b(flipped_back, compare.parse("jit_compile")).jit_compile is False
    assert compare.side_b(job, compare.parse("tf=2.15.1")).tf_version == "2.15.1"
    on_old = dataclasses.replace(job, tf_version="2.15.1")
    assert compare.side_b(on_old, compare.parse("tf=default")).tf_version == ""
    assert compare.side_b(job, compare.parse("signature=float32[None]")).signature == "float32[None]"
    with_signature = dataclasses.replace(job, signature="float32[None]")
    assert compare.side_b(with_signature, compare.parse("signature=")).signature is None


@pytest.mark.parametrize(
    "job_change, text",
    [
        ({}, "reduce_retracing=off"),
        ({"jit_compile": True}, "jit_compile=on"),
        ({}, "signature="),
        ({}, "tf=default"),
        ({"tf_version": "2.15.1"}, "tf=2.15.1"),
        ({"signature": "float32[None]"}, "signature=float32[None]"),
    ],
)
def test_side_b_equal_to_side_a_is_refused(job_change, text):
    job = dataclasses.replace(MANY_SHAPES.job(), **job_change)
    with pytest.raises(SpecError, match="both sides would be the same"):
        compare.side_b(job, compare.parse(text))


def run(pool, job: Job, text: str) -> compare.Comparison:
    spec = compare.parse(text)
    job_b = compare.side_b(job, spec)
    a, b = compare.run_sides(pool.submit, job, job_b, concurrent=True)
    return compare.compare(spec, job, job_b, a, b)


def kinds(comparison: compare.Comparison) -> list[tuple]:
    return [(d.kind, d.call) for d in comparison.differences]


def test_reduce_retracing_differences_on_a_real_run(pool):
    c = run(pool, MANY_SHAPES.job(), "reduce_retracing")
    # TF 2.21: shapes [1]..[4] trace 4 times by default, twice with reduce_retracing (DESIGN.md).
    assert (c.a.tracing_count, c.b.tracing_count) == (4, 2)
    by_kind = {(d.kind, d.call): d for d in c.differences}
    assert (by_kind[("tracing_count", None)].a, by_kind[("tracing_count", None)].b) == (4, 2)
    assert [(d.call, d.a, d.b) for d in c.differences if d.kind == "retraced"] == [
        (2, True, False),
        (3, True, False),
    ]
    # Call 1 traced on both sides; only reduce_retracing's reason says it generalised.
    reason = by_kind[("reason", 1)]
    assert reason.function == "total" and "None" in reason.b and "None" not in reason.a
    # The same deterministic inputs and the same maths: no output, error or op count differs.
    assert not {"output", "error", "op_count", "timing"} & {d.kind for d in c.differences}
    assert (c.side_a, c.side_b) == ("reduce_retracing=off", "reduce_retracing=on")
    again = compare.Comparison.from_json(c.to_json())
    assert again == c


def test_a_signature_that_rejects_a_call_raises_on_side_b_only(pool):
    job = Job(source=MANY_SHAPES.source, function="total", calls=("float32[3]", "float32[2,2]"))
    c = run(pool, job, "signature=float32[None]")
    assert (c.a.status, c.b.status) == ("ok", "error")
    (error,) = [d for d in c.differences if d.kind == "error"]
    assert (error.function, error.call, error.a) == ("total", 1, None)
    assert error.b.startswith("TypeError: Binding inputs to tf.function failed")
    # Side a traced the rank-2 call; side b's signature refused it before tracing.
    assert ("retraced", 1) in kinds(c) and ("tracing_count", None) in kinds(c)
    assert not c.status_ok


def test_jit_compile_of_an_op_xla_lacks_raises_on_side_b_only(pool):
    c = run(pool, Job(source=LABEL, function="label", calls=("int32[3]",)), "jit_compile")
    (error,) = [d for d in c.differences if d.kind == "error"]
    assert (error.call, error.a) == (0, None)
    assert error.b.startswith("InvalidArgumentError: Detected unsupported operations")
    assert "AsString" in error.b
    assert c.a.functions[0].calls[0].output is not None and c.b.functions[0].calls[0].output is None


def test_two_real_runs_of_the_same_code_differ_in_time_only_beyond_their_noise(pool):
    """A jit_compile compare: both sides time the same eager, graph and XLA, so the timing it
    reports is side a's graph against side b's XLA, and only when their quartiles part."""
    job = MANY_SHAPES.job(timing=True, timing_budget_s=0.3, calls=("float32[8]",))
    c = run(pool, job, "jit_compile")
    timing = [d for d in c.differences if d.kind == "timing"]
    assert all(d.detail == "graph → xla" for d in timing)
    graph, xla = c.a.functions[0].timing.graph, c.b.functions[0].timing.xla
    assert bool(timing) == compare._apart(graph, xla)
    if timing:
        assert (timing[0].a, timing[0].b) == (graph.median_s, xla.median_s)


def timed(name: str, **samples_us: list[float]):
    from playground.contract.job import FunctionReport, ModeTiming, Timing

    def mode(values: list[float]) -> ModeTiming:
        seconds = [v / 1e6 for v in values]
        return ModeTiming(median_s=sorted(seconds)[len(seconds) // 2], samples_s=seconds)

    timing = Timing(
        eager=mode(samples_us["eager"]),
        graph=mode(samples_us["graph"]),
        xla=mode(samples_us["xla"]) if "xla" in samples_us else None,
        first_call_s={},
    )
    return FunctionReport(name, 1, [], [], None, None, None, timing)


def test_a_timing_difference_is_one_outside_both_sides_quartiles():
    from playground.contract.job import Report

    def report(function):
        return Report("2.21.0", "CPU", "ok", None, "", [], [function])

    a = timed("f", eager=[50, 52, 53, 55, 60], graph=[300, 310, 320, 330, 340])
    noise = timed("f", eager=[51, 52.9, 54, 56, 58], graph=[305, 315, 318, 335, 345])  # 52.9 vs 53: noise
    slower = timed("f", eager=[50, 52, 53, 55, 60], graph=[400, 410, 420, 430, 440])
    assert [d for d in compare.differences(report(a), report(noise)) if d.kind == "timing"] == []
    (d,) = [d for d in compare.differences(report(a), report(slower)) if d.kind == "timing"]
    assert (d.detail, d.a, d.b) == ("graph", 320e-6, 420e-6)
    xla = timed("f", eager=[50, 52, 53, 55, 60], graph=[300, 310, 320, 330, 340], xla=[90, 95, 100, 105, 110])
    (d,) = [d for d in compare.differences(report(a), report(xla), "jit_compile") if d.kind == "timing"]
    assert (d.detail, d.a, d.b) == ("graph → xla", 320e-6, 100e-6)


def test_run_sides_one_after_the_other_keeps_the_order():
    seen = []

    def submit(job):
        seen.append(job.reduce_retracing)
        return job.reduce_retracing

    assert compare.run_sides(
        submit, Job(source="a"), Job(source="b", reduce_retracing=True), concurrent=False
    ) == (False, True)
    assert seen == [False, True]
