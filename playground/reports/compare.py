"""Compare mode: one spec ("tf=2.15.1", "reduce_retracing", "jit_compile", "signature=SPECS")
turns side a's Job into side b's, and two Reports into a list of typed differences.

Plain data, no TensorFlow: the CLI and the UI parse and diff here; the executor runs both jobs.

    kind            where                  a / b
    tracing_count   function               each side's tracing count
    retraced        function, call         True / False
    reason          function, call         each side's trace reason (both sides traced)
    output          function, call         each side's output summary (neither raised)
    error           [function, call]       "TypeError: ..." / None (report level without a call)
    op_count        function, detail       ops as traced / after Grappler (detail says which)
    timing          function, detail       median seconds per call of one mode, when the two differ
                                           beyond both sides' quartile ranges (detail: the mode, or
                                           "graph → xla" in a jit_compile compare)
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..contract import specs, stats, versions
from ..contract.config import Settings
from ..contract.errors import SpecError
from ..contract.i18n import _
from ..contract.job import CallRecord, ErrorInfo, FunctionReport, Job, ModeTiming, Report, from_dict, to_dict

KINDS = ("tf", "reduce_retracing", "jit_compile", "signature")
DIFFERENCE_KINDS = ("tracing_count", "retraced", "reason", "output", "error", "op_count", "timing")
# The option names users know from older tutorials, read as today's.
ALIASES = {
    "experimental_relax_shapes": "reduce_retracing",
    "input_signature": "signature",
    "xla": "jit_compile",
}
_TRUE, _FALSE = ("true", "on", "1", "yes"), ("false", "off", "0", "no")
_VERSION_RE = re.compile(r"^\d+\.\d+(\.\d+)?([a-z]+\d*)?$")


def accepted_forms() -> str:
    return _(
        "accepted: tf=VERSION (e.g. tf=2.15.1, or tf=default), reduce_retracing[=on|off], "
        "jit_compile[=on|off], signature=SPECS (e.g. signature=float32[None]; "
        "signature= for none)"
    )


@dataclass(frozen=True)
class CompareSpec:
    """What side b changes: a TF version, a flag (None: the opposite of side a's), a signature."""

    kind: str  # one of KINDS
    value: str | bool | None = None  # tf: the version; signature: SPECS ("" none); flag

    def __str__(self) -> str:
        if self.kind == "tf":
            return f"tf={self.value or 'default'}"
        if self.kind == "signature":
            return f"signature={self.value}"
        return self.kind if self.value is None else f"{self.kind}={'on' if self.value else 'off'}"


def parse(text: str) -> CompareSpec:
    """Reads one compare spec; a malformed one is a SpecError naming it and the accepted forms."""
    raw = text.strip()
    name, eq, value = raw.partition("=")
    name = ALIASES.get(name.strip(), name.strip())
    value = value.strip()
    if name not in KINDS:
        raise SpecError(
            _("compare {text!r}: unknown option {name!r}; {forms}").format(
                text=raw, name=name, forms=accepted_forms()
            )
        )
    if name == "tf":
        if value == "default":  # the default install, e.g. against `--tf 2.15.1` on side a
            return CompareSpec("tf", "")
        if not _VERSION_RE.match(value):
            raise SpecError(
                _("compare {text!r}: {value!r} is not a TensorFlow version; {forms}").format(
                    text=raw, value=value, forms=accepted_forms()
                )
            )
        return CompareSpec("tf", value)
    if name == "signature":
        if not eq:
            raise SpecError(
                _("compare {text!r}: the signature is missing; {forms}").format(
                    text=raw, forms=accepted_forms()
                )
            )
        try:
            parsed = specs.parse_signature(value)
        except SpecError as error:
            raise SpecError(
                _("compare {text!r}: {error}; {forms}").format(text=raw, error=error, forms=accepted_forms())
            ) from None
        return CompareSpec("signature", ", ".join(str(s) for s in parsed))
    if not eq:
        return CompareSpec(name, None)
    if value.lower() in _TRUE + _FALSE:
        return CompareSpec(name, value.lower() in _TRUE)
    raise SpecError(
        _("compare {text!r}: {name} takes on or off, got {value!r}; {forms}").format(
            text=raw, name=name, value=value, forms=accepted_forms()
        )
    )


def side_b(job: Job, spec: CompareSpec) -> Job:
    """Side a's job with the spec's one change; refused when both sides would be the same."""
    if spec.kind == "tf":
        changed = dataclasses.replace(job, tf_version=str(spec.value))
    elif spec.kind == "signature":
        changed = dataclasses.replace(job, signature=str(spec.value) or None)
    else:
        current = bool(getattr(job, spec.kind))
        wanted = (not current) if spec.value is None else bool(spec.value)
        changes: dict[str, Any] = {spec.kind: wanted}  # one of Job's bool options
        changed = dataclasses.replace(job, **changes)
    if changed == job:
        raise SpecError(
            _("compare {spec}: side a already runs with it, so both sides would be the same; {forms}").format(
                spec=spec, forms=accepted_forms()
            )
        )
    return changed


def plan(spec: CompareSpec, job: Job, settings: Settings) -> Job:
    """Side b's Job, with tf=VERSION resolved against the installed versions (one that is not
    installed is refused there, naming those that are; tf=default is the default install)."""
    if spec.kind == "tf":
        chosen = versions.resolve(settings, str(spec.value))
        return side_b(job, CompareSpec("tf", "" if chosen.default else chosen.version))
    return side_b(job, spec)


def describe(job: Job, spec: CompareSpec) -> str:
    """The varied setting as this side has it, e.g. "reduce_retracing=off"."""
    if spec.kind == "tf":
        return "tf=" + (job.tf_version or _("default"))
    if spec.kind == "signature":
        return f"signature={job.signature or _('none')}"
    return f"{spec.kind}={'on' if getattr(job, spec.kind) else 'off'}"


@dataclass(frozen=True)
class Difference:
    """One way the sides differ, with both values and where (function, call index)."""

    kind: str  # one of DIFFERENCE_KINDS
    a: Any
    b: Any
    function: str | None = None
    call: int | None = None  # 0-based, as CallRecord.index
    detail: str = ""  # op_count: traced | after_grappler; timing: the mode


@dataclass(frozen=True)
class Comparison:
    """Both sides' reports and what differs; JSON: {"compare": {"a", "b", "differences", ...}}."""

    spec: str
    a: Report
    b: Report
    differences: list[Difference] = field(default_factory=list)
    side_a: str = ""  # describe() of each side
    side_b: str = ""

    @property
    def status_ok(self) -> bool:
        return self.a.status == "ok" and self.b.status == "ok"

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps({"compare": to_dict(self)}, **kwargs)

    @classmethod
    def from_json(cls, text: str) -> Comparison:
        return from_dict(cls, json.loads(text)["compare"])


ERROR_CHARS = 300


def error_text(error: ErrorInfo | None) -> str | None:
    """ "TypeError: <first line>": the line Python and TF lead with (XLA's later lines are noise)."""
    if error is None:
        return None
    lines = [line for line in error.message.strip().splitlines() if line.strip()]
    if not lines:
        return error.type
    first = lines[0] if len(lines[0]) <= ERROR_CHARS else lines[0][: ERROR_CHARS - 1] + "…"
    return f"{error.type}: {first}"


def _report_error(report: Report) -> str | None:
    """The run's own error, or how it was stopped; a call that raised is a call's difference."""
    if report.error is not None:
        return error_text(report.error)
    return None if report.status in ("ok", "error") else f"{report.status}: {report.message}"


def _calls(a: FunctionReport, b: FunctionReport) -> list[Difference]:
    found = []
    for index in sorted({c.index for c in a.calls} | {c.index for c in b.calls}):
        ca = next((c for c in a.calls if c.index == index), None)
        cb = next((c for c in b.calls if c.index == index), None)
        found += _call(a.name, index, ca, cb)
    return found


def _call(name: str, index: int, ca: CallRecord | None, cb: CallRecord | None) -> list[Difference]:
    def at(kind: str, va: Any, vb: Any) -> Difference:
        return Difference(kind, va, vb, function=name, call=index)

    if ca is None or cb is None:  # one side's run stopped before this call
        return [
            at(
                "error",
                error_text(ca.error) if ca else _("did not run"),
                error_text(cb.error) if cb else _("did not run"),
            )
        ]
    found = []
    if ca.retraced != cb.retraced:
        found.append(at("retraced", ca.retraced, cb.retraced))
    elif ca.retraced and ca.reason != cb.reason:
        found.append(at("reason", ca.reason, cb.reason))
    ea, eb = error_text(ca.error), error_text(cb.error)
    if ea != eb:
        found.append(at("error", ea, eb))
    elif ea is None and ca.output != cb.output:
        found.append(at("output", ca.output, cb.output))
    return found


def _graph(a: FunctionReport, b: FunctionReport) -> list[Difference]:
    found = []
    for detail, read in (
        ("traced", lambda g: g.op_count),
        ("after_grappler", lambda g: g.op_count_optimized),
    ):
        va = read(a.graph) if a.graph else None
        vb = read(b.graph) if b.graph else None
        if va != vb:
            found.append(Difference("op_count", va, vb, function=a.name, detail=detail))
    return found


def _modes(function: FunctionReport) -> dict[str, ModeTiming]:
    timing = function.timing
    if timing is None:
        return {}
    found = {"eager": timing.eager, "graph": timing.graph}
    if timing.xla is not None:
        found["xla"] = timing.xla
    return found


# A run's own spread understates the spread between runs: with the quartile rule alone, 3 of 10
# tries of bench/bench_compare_noise.py (the same job twice, this 2-core machine) reported a
# difference, at 6% apart among others. A difference must also be this large: 0 of 10 with it.
MIN_TIMING_RATIO = 1.25


def _apart(a: ModeTiming, b: ModeTiming) -> bool:
    """Whether two measurements differ beyond their noise: their interquartile ranges do not
    overlap, and one median is at least MIN_TIMING_RATIO times the other. Two runs of the same
    code differ in every digit; that is not a difference."""
    qa, qb = stats.quartiles(a.samples_s or [a.median_s]), stats.quartiles(b.samples_s or [b.median_s])
    low, high = sorted((a.median_s, b.median_s))
    return (qa[2] < qb[0] or qb[2] < qa[0]) and high >= MIN_TIMING_RATIO * low


def _timing(a: FunctionReport, b: FunctionReport, kind: str = "") -> list[Difference]:
    """Each mode whose time differs beyond both sides' noise. A jit_compile compare times the
    same eager, graph and XLA on both sides, so there the comparison meant is side a's graph
    against side b's XLA."""
    ma, mb = _modes(a), _modes(b)
    pairs = (
        [("graph", "xla", "graph → xla")]
        if kind == "jit_compile"
        else [(m, m, m) for m in ("eager", "graph", "xla")]
    )
    found = []
    for mode_a, mode_b, detail in pairs:
        ta, tb = ma.get(mode_a), mb.get(mode_b)
        if (ta is None) != (tb is None) or (ta is not None and tb is not None and _apart(ta, tb)):
            found.append(
                Difference(
                    "timing",
                    ta.median_s if ta else None,
                    tb.median_s if tb else None,
                    function=a.name,
                    detail=detail,
                )
            )
    return found


def differences(a: Report, b: Report, kind: str = "") -> list[Difference]:
    """Typed differences between two reports, report-level error first, then per function;
    kind: the compare's (CompareSpec.kind), which decides what timing is compared with what."""
    found = []
    ea, eb = _report_error(a), _report_error(b)
    if ea != eb:
        found.append(Difference("error", ea, eb))
    by_name_b = {f.name: f for f in b.functions}
    names = [f.name for f in a.functions] + [
        f.name for f in b.functions if f.name not in {g.name for g in a.functions}
    ]
    by_name_a = {f.name: f for f in a.functions}
    for name in names:
        fa, fb = by_name_a.get(name), by_name_b.get(name)
        if fa is None or fb is None:  # a function that exists on one side only
            found.append(
                Difference(
                    "tracing_count",
                    fa.tracing_count if fa else None,
                    fb.tracing_count if fb else None,
                    function=name,
                )
            )
            continue
        if fa.tracing_count != fb.tracing_count:
            found.append(Difference("tracing_count", fa.tracing_count, fb.tracing_count, function=name))
        found += _calls(fa, fb) + _graph(fa, fb) + _timing(fa, fb, kind)
    return found


def compare(spec: CompareSpec, job_a: Job, job_b: Job, a: Report, b: Report) -> Comparison:
    return Comparison(
        spec=str(spec),
        a=a,
        b=b,
        differences=differences(a, b, spec.kind),
        side_a=describe(job_a, spec),
        side_b=describe(job_b, spec),
    )


Submit = Callable[[Job], Report]


def run_sides(submit: Submit, job_a: Job, job_b: Job, *, concurrent: bool) -> tuple[Report, Report]:
    """Both reports: at once on two threads where the executor runs two jobs at a time, else one
    after the other (a client limited to one running job would otherwise queue behind itself)."""
    if not concurrent:
        return submit(job_a), submit(job_b)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="compare") as threads:
        future_b = threads.submit(submit, job_b)
        report_a = submit(job_a)
        return report_a, future_b.result()
