"""Problems tab: pitfall warnings with their fixes, errors, and the source with those lines lit."""

from __future__ import annotations

import html

import streamlit as st

from ...contract import plan_fit, reasons, source_info
from ...contract.i18n import _
from ...contract.job import ErrorInfo, Warning
from ...reports.safe_text import markdown_literal as md
from .. import keys
from ..state import Result


def problem_lines(result: Result) -> dict[int, str]:
    """Line number -> a short label of what is wrong there."""
    report = result.report
    lines: dict[int, str] = {}
    for warning in report.warnings:
        if warning.line:
            lines.setdefault(warning.line, warning.code)
    if report.error and report.error.line:
        lines[report.error.line] = report.error.type
    for function in report.functions:
        for call in function.calls:
            if call.error and call.error.line and not call.handled:
                lines.setdefault(call.error.line, call.error.type)
    return lines


def highlighted_source(source: str, marks: dict[int, str]) -> str:
    """HTML of the source with line numbers, the marked lines on a red background, on one line:
    markdown reads it as one HTML block, which only a blank line would end (a label is a report's
    string, so its line breaks go; splitlines() took the source's)."""
    rows = []
    for number, text in enumerate(source.splitlines(), 1):
        label = marks.get(number)
        style = (
            "background:#ffe0e0;border-left:4px solid #d62728;"
            if label
            else "border-left:4px solid transparent;"
        )
        note = (
            f'  <span style="color:#d62728">◀ {html.escape(" ".join(label.split()))}</span>' if label else ""
        )
        css_class = ' class="problem-line"' if label else ""
        rows.append(
            f'<div{css_class} style="{style}padding-left:4px"><span style="color:#999">{number:>3}</span>  '
            f"{html.escape(text) or '&nbsp;'}{note}</div>"
        )
    return (
        '<div class="problem-source" style="font-family:monospace;white-space:pre;'
        'font-size:0.85rem;overflow-x:auto">' + "".join(rows) + "</div>"
    )


def grouped_errors(result: Result) -> list[tuple[str, ErrorInfo]]:
    """(where, error) with one entry per distinct error: the same failure on every call is one problem."""
    report = result.report
    seen: dict[tuple[str, str], tuple[ErrorInfo, list[str]]] = {}  # (type, message) -> (error, calls)
    for function in report.functions:
        for call in function.calls:
            if call.error and not call.handled:  # a call the script caught is no problem
                seen.setdefault((call.error.type, call.error.message), (call.error, []))[1].append(
                    str(call.index + 1)
                )
    errors = [
        (
            (_("call {numbers}") if len(calls) == 1 else _("calls {numbers}")).format(
                numbers=", ".join(calls)
            ),
            error,
        )
        for error, calls in seen.values()
    ]
    if report.error:
        errors.insert(0, (_("the run"), report.error))
    return errors


def python_values_that_changed(result: Result, function: str | None) -> list[str]:
    """The arguments whose Python value changed between the calls of `function`, as the
    python-scalar-arg pitfall names them."""
    names: list[str] = []
    for report in result.report.functions:
        if function is None or report.name == function:
            for call in report.calls:
                names += [arg for arg, _change in reasons.python_values(call.reason) if arg not in names]
    return names


def fix_button(result: Result, warning: Warning, number: int) -> None:
    """The fix applied with one click, where the page can make it: python-scalar-arg's in the
    plan; excessive-retracing's over shapes as an input_signature or reduce_retracing. The run
    that follows shows the trace count beside the one before (results summary)."""
    if result.comparison is not None or result.job.function is None:
        return
    key = f"{keys.APPLY_FIX}_{number}"
    if warning.code == "python-scalar-arg":
        names = python_values_that_changed(result, warning.function)
        if names:
            st.button(
                _("Apply: pass {names} as tensors in the call plan, and run again").format(
                    names=", ".join(names)
                ),
                key=key,
                on_click=apply_fix,
                args=(result, {keys.CALLS: _as_tensors(result, names)}),
            )
    elif (
        warning.code == "excessive-retracing" and _shapes_retraced(result) and not result.job.reduce_retracing
    ):
        covering = plan_fit.covering_signature(list(result.job.calls))
        one, two = st.columns(2)
        if covering:
            signature = ", ".join(str(spec) for spec in covering)
            one.button(
                _("Apply: input_signature {signature}, and run again").format(signature=signature),
                key=key,
                on_click=apply_fix,
                args=(result, {keys.SIGNATURE: signature}),
            )
        two.button(
            _("Apply: reduce_retracing, and run again"),
            key=f"{key}_reduce",
            on_click=apply_fix,
            args=(result, {keys.REDUCE_RETRACING: True}),
        )


def _shapes_retraced(result: Result) -> bool:
    """Whether a shape made a retrace, and no input_signature was set (the shape fixes'
    case; for a Python value they would not help)."""
    calls = [c for f in result.report.functions for c in f.calls if c.retraced]
    return not result.job.signature and any("shape" in reasons.causes(c.reason) for c in calls)


def _as_tensors(result: Result, names: list[str]) -> str:
    job = result.job
    info = next((i for i in source_info.functions(job.source) if i.name == job.function), None)
    return "\n".join(plan_fit.as_tensors(list(job.calls), set(names), info))


def apply_fix(result: Result, inputs: dict[str, object]) -> None:
    """on_click: the inputs the fix changes (the plan, the signature or an option), and a run."""
    for key, value in inputs.items():
        st.session_state[key] = value
    st.session_state[keys.FIX_APPLIED] = (result.number, result.report.tracing_count)
    st.session_state[keys.RUN_REQUESTED] = True
    st.session_state[keys.RERUN_PAGE] = True  # the inputs, outside the results, show the change


def render(result: Result) -> None:
    report = result.report
    errors = grouped_errors(result)
    if not report.warnings and not errors:
        st.success(_("No problems found: no pitfall warnings and no errors."))
        return
    for number, warning in enumerate(report.warnings):
        where = _("line {line}").format(line=warning.line) if warning.line else _("function")
        st.warning(
            _("**{code}** ({where}): {message}\n\n**Fix:** {fix}").format(
                code=md(warning.code), where=where, message=md(warning.message), fix=md(warning.fix)
            )
        )
        fix_button(result, warning, number)
    for where, error in errors:
        st.error(
            _("**{type}** in {where}").format(type=md(error.type), where=where)
            + (_(", line {line}").format(line=error.line) if error.line else "")
        )
        st.code(error.traceback or error.message, language="text")
    marks = problem_lines(result)
    if marks:
        st.markdown(_("**Your code, with the offending lines highlighted**"))
        st.markdown(highlighted_source(result.job.source, marks), unsafe_allow_html=True)
