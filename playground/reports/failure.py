"""Why a run failed, in the playground's words, ahead of the error as raised: XLA's missing
kernels, and the pitfall that names the cause (a tf.Variable made on a retrace, .numpy() on a
symbolic tensor, a static shape where the size is None). Every front end shows these first and
the raw error folded under them; and what a traceback shows loses its runs of blank lines
(TensorFlow leaves one per frame it hides)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..contract.i18n import _
from ..contract.job import FunctionReport, Report
from . import tables

# Pitfall rules whose warning names the cause of the error its function raised.
EXPLAINS_ERRORS = frozenset({"variable-in-function", "numpy-in-graph", "python-control-flow-on-tensor-shape"})
_BLANK_RUN = re.compile(r"\n(?:[ \t]*\n)+")


@dataclass(frozen=True)
class Explanation:
    """One reason a run failed: what, where, and how to fix it."""

    function: str
    text: str
    fix: str
    line: int | None = None
    code: str = ""  # the pitfall's code, or "xla-unsupported"


def failed(function: FunctionReport) -> bool:
    """Whether a call of it raised and the script did not catch it."""
    return any(c.error and not c.handled for c in function.calls)


def explanations(report: Report) -> list[Explanation]:
    """The reasons we can give for the failed calls of the report's functions, in its order."""
    found: list[Explanation] = []
    for function in report.functions:
        if not failed(function):
            continue
        xla = function.xla
        if xla is not None and xla.unsupported and xla.compiled is False:  # jit_compile on, and it failed
            found.append(
                Explanation(
                    function.name,
                    xla_sentence(function),
                    _(
                        "Move these ops out of the function compiled with jit_compile=True (or "
                        "compile it without jit_compile): XLA compiles only ops it has a kernel for."
                    ),
                    next((op.line for op in xla.unsupported if op.line), None),
                    "xla-unsupported",
                )
            )
        found += [
            Explanation(function.name, w.message, w.fix, w.line, w.code)
            for w in report.warnings
            if w.code in EXPLAINS_ERRORS and w.function == function.name
        ]
    return found


def xla_sentence(function: FunctionReport) -> str:
    """'XLA has no kernel on XLA_CPU_JIT for 1 op(s) of this graph: PyFunc at line 6.'"""
    if function.xla is None:
        return ""
    return next((text for kind, text in tables.xla_findings(function.xla) if kind == "error"), "")


def explained_warnings(report: Report) -> set[int]:
    """The indexes of report.warnings that an explanation already shows."""
    names = {e.function for e in explanations(report) if e.code in EXPLAINS_ERRORS}
    return {i for i, w in enumerate(report.warnings) if w.code in EXPLAINS_ERRORS and w.function in names}


def jit_compiled(function: FunctionReport | None, source_decorated: bool = False) -> bool:
    """Whether the run compiled it with XLA (jit_compile on, as an option or in its decorator):
    the engine records whether XLA compiled it only then; or the code itself says so."""
    if function is None:
        return source_decorated
    return source_decorated or (function.xla is not None and function.xla.compiled is not None)


def no_hlo_reason(function: FunctionReport) -> str:
    """Why a jit_compile function has no HLO: XLA's missing kernels, or the error its calls
    raised; "" when the report says neither."""
    sentence = xla_sentence(function)
    if sentence:
        return sentence
    error = next((c.error for c in function.calls if c.error and not c.handled), None)
    if error is not None:
        return f"{error.type}: {error.headline()[:300]}"
    return ""


def collapse_blank_lines(text: str) -> str:
    """A traceback without its runs of blank lines: each run becomes one, and none lead or trail."""
    return _BLANK_RUN.sub("\n\n", text.replace("\r\n", "\n")).strip("\n")
