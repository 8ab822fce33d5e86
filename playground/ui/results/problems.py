"""Problems tab: pitfall warnings with their fixes, errors, and the source with those lines lit."""

from __future__ import annotations

import html

import streamlit as st

from ...contract import plan_fit, reasons, source_info
from ...contract.i18n import _
from ...contract.job import ErrorInfo, Report, SourceLine, Warning
from ...reports import failure
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
    rows = [
        _source_row(number, text, marks.get(number)) for number, text in enumerate(source.splitlines(), 1)
    ]
    return (
        '<div class="problem-source" style="font-family:monospace;white-space:pre;'
        'font-size:0.85rem;overflow-x:auto">' + "".join(rows) + "</div>"
    )


def _source_row(number: int, text: str, label: str | None) -> str:
    """One numbered line of source; a marked one on red, with its label."""
    style = (
        "background:#ffe0e0;border-left:4px solid #d62728;" if label else "border-left:4px solid transparent;"
    )
    note = f'  <span style="color:#d62728">◀ {html.escape(" ".join(label.split()))}</span>' if label else ""
    css_class = ' class="problem-line"' if label else ""
    return (
        f'<div{css_class} style="{style}padding-left:4px"><span style="color:#999">{number:>3}</span>  '
        f"{html.escape(text) or '&nbsp;'}{note}</div>"
    )


def saved_trace(result: Result) -> bool:
    """A trace-mode report opened from a file: its lines are the program's, not the editor's.
    (A live run's report never has one that counts: a worker cannot make itself a file.)"""
    return bool(result.saved) and result.report.trace is not None


def site_of(report: Report, function: str | None, line: int | None) -> str:
    """'train.py:26': where a trace-mode warning's line is, read from its function's calls."""
    for f in report.functions + report.library_functions:
        if f.name == function:
            site = next((c.site for c in f.calls if c.line == line and c.site), "")
            if site:
                return site
    return ""


def cited_marks(report: Report) -> dict[tuple[str, int], str]:
    """(file, line) -> what is wrong there, for a trace-mode report's cited lines."""
    marks: dict[tuple[str, int], str] = {}

    def mark(site: str, label: str) -> None:
        file, _sep, number = site.rpartition(":")
        if file and number.isdecimal():
            marks.setdefault((file, int(number)), label)

    program = report.trace.program if report.trace else ""
    if report.error and report.error.line and program:
        mark(f"{program}:{report.error.line}", report.error.type)
    for warning in report.warnings:
        mark(site_of(report, warning.function, warning.line), warning.code)
    for f in report.functions + report.library_functions:
        for call in f.calls:
            if call.error and not call.handled:
                mark(call.site, call.error.type)
    return marks


def cited_source(lines: list[SourceLine], marks: dict[tuple[str, int], str]) -> str:
    """HTML of the lines a saved report cites, file by file in line order, a gap between lines
    that are not neighbours, the marked ones lit as highlighted_source lights them."""
    rows = []
    by_file: dict[str, list[SourceLine]] = {}
    for cited in lines:
        by_file.setdefault(cited.file, []).append(cited)
    for file, cited_lines in by_file.items():
        rows.append(f'<div style="color:#59636e;padding-top:4px">{html.escape(" ".join(file.split()))}</div>')
        previous = None
        for cited in sorted(cited_lines, key=lambda c: c.line):
            if previous is not None and cited.line > previous + 1:
                rows.append('<div style="color:#999;padding-left:8px">⋮</div>')
            previous = cited.line
            rows.append(
                _source_row(cited.line, " ".join(cited.text.splitlines()), marks.get((file, cited.line)))
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


def error_heading(where: str, error: ErrorInfo) -> str:
    """'**InvalidArgumentError** in call 1, line 6'."""
    return _("**{type}** in {where}").format(type=md(error.type), where=where) + (
        _(", line {line}").format(line=error.line) if error.line else ""
    )


def explanation_text(explanation: failure.Explanation, where: str = "") -> str:
    """An explanation as the page shows it first: why, where, and the fix."""
    if not where:
        where = _("line {line}").format(line=explanation.line) if explanation.line else _("function")
    text = _("**Why it failed** ({where}): {why}").format(where=where, why=md(explanation.text))
    return text + ("\n\n" + _("**Fix:** {fix}").format(fix=md(explanation.fix)) if explanation.fix else "")


def warning_where(result: Result, warning: Warning) -> str:
    """'line 6', or in a saved trace-mode report the file and line ('train.py:26')."""
    if saved_trace(result):
        site = site_of(result.report, warning.function, warning.line)
        if site:
            return md(site)
    return _("line {line}").format(line=warning.line) if warning.line else _("function")


def render(result: Result) -> None:
    """What went wrong: the reasons we can give first, the errors as raised folded under them
    (or open, when there is no reason to give), then the other pitfalls, then the code with
    those lines lit (a saved trace-mode report's: the lines it cites)."""
    report = result.report
    errors = grouped_errors(result)
    if not report.warnings and not errors:
        st.success(_("No problems found: no pitfall warnings and no errors."))
        return
    explained = failure.explanations(report) if errors else []
    for explanation in explained:
        where = ""
        if explanation.code in failure.EXPLAINS_ERRORS and saved_trace(result):
            where = md(site_of(report, explanation.function, explanation.line))
        st.error(explanation_text(explanation, where))
    for where, error in errors:
        if explained:
            with st.expander(_("The error as raised: {heading}").format(heading=error_heading(where, error))):
                st.code(failure.collapse_blank_lines(error.traceback or error.message), language="text")
    shown = failure.explained_warnings(report) if explained else set()
    for number, warning in enumerate(report.warnings):
        if number in shown:
            continue
        st.warning(
            _("**{code}** ({where}): {message}\n\n**Fix:** {fix}").format(
                code=md(warning.code),
                where=warning_where(result, warning),
                message=md(warning.message),
                fix=md(warning.fix),
            )
        )
        fix_button(result, warning, number)
    if not explained:
        for where, error in errors:
            st.error(error_heading(where, error))
            st.code(failure.collapse_blank_lines(error.traceback or error.message), language="text")
    if saved_trace(result):
        trace = report.trace
        if trace and trace.lines:
            st.markdown(_("**The lines of your program this report cites**"))
            st.markdown(cited_source(trace.lines, cited_marks(report)), unsafe_allow_html=True)
        return
    marks = problem_lines(result)
    if marks and result.job.source:
        st.markdown(_("**Your code, with the offending lines highlighted**"))
        st.markdown(highlighted_source(result.job.source, marks), unsafe_allow_html=True)
