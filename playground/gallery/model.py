"""A gallery example, its machine-checkable expectation, and the check against a live run."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..contract.i18n import _
from ..contract.job import Job, Report
from ..contract.job_request import JobRequest


@dataclass(frozen=True)
class Expectation:
    """What this TF version does; None means 'not checked'."""

    tracing_count: int | None = None
    error_type: str | None = None  # "" means: no error anywhere in the run
    warning_codes: tuple[str, ...] = ()  # each must be reported
    no_warnings: bool = False  # the clean, fixed version of a pitfall
    optimized_ops_at_most: int | None = None  # Grappler's graph is at most this many ops
    output_contains: str | None = None  # text in the last call's output (or stdout)


@dataclass(frozen=True)
class Example:
    slug: str
    title: str  # N_(): translated where shown
    explanation: str
    source: str
    function: str | None
    calls: tuple[str, ...] = ()
    signature: str = ""
    reduce_retracing: bool = False
    jit_compile: bool = False
    article_claim: str = ""  # what the seed article says happens
    expect: Expectation = field(default_factory=Expectation)
    fixed_by: str = ""  # slug of the corrected version
    tab: str = ""  # the results tab its explanation points at, opened with it (ui/results TABS)
    numbers: bool = False  # eager, graph and XLA outputs compared (--numbers)
    tolerance: float = 1e-5
    passes: bool = False  # Grappler's and XLA's passes one by one (--passes)

    def options(self) -> dict[str, object]:
        """The run options the example sets (contract/options.py); the others keep their defaults."""
        return {
            "signature": self.signature or None,
            "reduce_retracing": self.reduce_retracing,
            "jit_compile": self.jit_compile,
            "numbers": self.numbers,
            "tolerance": self.tolerance,
            "passes": self.passes,
        }

    def job(self, **overrides: object) -> Job:
        fields = {"source": self.source, "function": self.function, "calls": self.calls, **self.options()}
        return Job(**{**fields, **overrides})  # type: ignore[arg-type]

    def request(self) -> JobRequest:
        """What to send the API (or the CLI's flags) to run the example."""
        return JobRequest(
            source=self.source,
            function=self.function,
            calls=tuple(self.calls),
            **self.options(),  # type: ignore[arg-type]
        )


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
        checks.append(
            ClaimCheck(
                _("tracing count"), str(expect.tracing_count), str(actual), actual == expect.tracing_count
            )
        )
    none = _("none")
    if expect.error_type is not None:
        error_type = first_error_type(report)
        checks.append(
            ClaimCheck(
                _("error"), expect.error_type or none, error_type or none, error_type == expect.error_type
            )
        )
    codes = sorted({w.code for w in report.warnings})
    for code in expect.warning_codes:
        checks.append(
            ClaimCheck(
                _("warning {code}").format(code=code),
                _("reported"),
                _("reported") if code in codes else _("not reported"),
                code in codes,
            )
        )
    if expect.no_warnings:
        checks.append(ClaimCheck(_("warnings"), none, ", ".join(codes) or none, not codes))
    if expect.optimized_ops_at_most is not None:
        graphs = [f.graph for f in report.functions if f.graph is not None]
        ops = f"{graphs[0].op_count} -> {graphs[0].op_count_optimized}" if graphs else _("no graph")
        checks.append(
            ClaimCheck(
                _("ops after Grappler"),
                f"<= {expect.optimized_ops_at_most}",
                ops,
                bool(graphs) and graphs[0].op_count_optimized <= expect.optimized_ops_at_most,
            )
        )
    if expect.output_contains is not None:
        outputs = [c.output or "" for f in report.functions for c in f.calls[-1:]]
        seen = "\n".join(outputs + [report.stdout])
        checks.append(
            ClaimCheck(
                _("output"),
                _("contains {text}").format(text=repr(expect.output_contains)),
                (outputs[-1] if outputs else report.stdout.strip())[:80],
                expect.output_contains in seen,
            )
        )
    return checks
