"""The examples gallery: one example per point of the seed article, each with what the article
claims and a machine-checkable expectation that is compared with the live run, never assumed.

Pure data and arithmetic (no TensorFlow), shared by the app, the CLI and the tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .job import Job, Report


@dataclass(frozen=True)
class Expectation:
    """What this TF version does; None means 'not checked'."""

    tracing_count: Optional[int] = None
    error_type: Optional[str] = None          # "" means: no error anywhere in the run
    warning_codes: tuple[str, ...] = ()        # each must be reported
    no_warnings: bool = False                  # the clean, fixed version of a pitfall


@dataclass(frozen=True)
class Example:
    slug: str
    title: str
    explanation: str
    source: str
    function: Optional[str]
    calls: tuple[str, ...] = ()
    signature: str = ""
    reduce_retracing: bool = False
    jit_compile: bool = False
    article_claim: str = ""                    # what the seed article says happens
    expect: Expectation = field(default_factory=Expectation)
    fixed_by: str = ""                         # slug of the corrected version

    def job(self, **overrides: object) -> Job:
        fields = dict(source=self.source, function=self.function, calls=self.calls,
                      signature=self.signature or None, reduce_retracing=self.reduce_retracing,
                      jit_compile=self.jit_compile)
        fields.update(overrides)
        return Job(**fields)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ClaimCheck:
    what: str
    expected: str
    actual: str
    holds: bool


def first_error_type(report: Report) -> str:
    if report.error is not None:
        return report.error.type
    for function in report.functions:
        for call in function.calls:
            if call.error is not None:
                return call.error.type
    return ""


def check(example: Example, report: Report) -> list[ClaimCheck]:
    """Compares the expectation with what the run really did."""
    expect, checks = example.expect, []
    if expect.tracing_count is not None:
        actual = report.tracing_count
        checks.append(ClaimCheck("tracing count", str(expect.tracing_count), str(actual),
                                 actual == expect.tracing_count))
    if expect.error_type is not None:
        actual = first_error_type(report)
        checks.append(ClaimCheck("error", expect.error_type or "none", actual or "none",
                                 actual == expect.error_type))
    codes = sorted({w.code for w in report.warnings})
    for code in expect.warning_codes:
        checks.append(ClaimCheck(f"warning {code}", "reported", "reported" if code in codes
                                 else "not reported", code in codes))
    if expect.no_warnings:
        checks.append(ClaimCheck("warnings", "none", ", ".join(codes) or "none", not codes))
    return checks


EXAMPLES: list[Example] = [
    Example(
        slug="retracing",
        title="Tracing and polymorphic dispatch",
        explanation=(
            "tf.function traces the Python body once per new input signature (shape and dtype) "
            "and caches the graph. The Python print runs only while tracing, so it shows up on "
            "the first call and again when the shape changes from (3,) to (2,), but not on the "
            "second call with the same shape."),
        source='''import tensorflow as tf

@tf.function
def process(x):
    print("Tracing! x.shape =", x.shape)  # runs only while tracing
    return x * 2
''',
        function="process", calls=("float32[3]", "float32[3]", "float32[2]"),
        article_claim="Each new shape traces again; the same shape reuses the graph: 2 traces.",
        expect=Expectation(tracing_count=2, error_type="", warning_codes=("print-at-trace",)),
        fixed_by="tf-print",
    ),
]

BY_SLUG = {e.slug: e for e in EXAMPLES}
