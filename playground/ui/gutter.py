"""Gutter annotations for the code editor: the error line and every pitfall line, with messages.

Pure (no Streamlit): it turns a Report, and a syntax error found before any run, into Ace's
`annotations` ({row, column, type, text}, rows 0-based).
"""

# No `from __future__ import annotations` here: it would bind the name of annotations() below.
import ast

from ..contract.i18n import _
from ..contract.job import Report


def local_syntax_error(source: str) -> dict | None:
    """The syntax error ast finds in the editor's text, as an annotation; None if it parses."""
    try:
        ast.parse(source)
    except SyntaxError as error:
        line = error.lineno or 1
        return _annotation(line, (error.offset or 1), "error", f"SyntaxError: {error.msg}")
    except ValueError:  # a null byte
        return None
    return None


def _annotation(line: int, column: int, kind: str, text: str) -> dict:
    return {"row": max(int(line) - 1, 0), "column": max(int(column) - 1, 0), "type": kind, "text": text}


def annotations(source: str, report: Report | None, report_source: str | None) -> list[dict]:
    """Errors (the run's, and each call's that the script did not handle) and pitfalls.

    A report only marks the text it ran on: once the code changed, its lines may not match.
    """
    found: list[dict] = []
    local = local_syntax_error(source)
    if local is not None:
        found.append(local)
    if report is None or report_source != source:
        return found
    lines = source.count("\n") + 1

    def add(line: int | None, column: int | None, kind: str, text: str) -> None:
        if line and 1 <= line <= lines and not any(a["row"] == line - 1 and a["text"] == text for a in found):
            found.append(_annotation(line, column or 1, kind, text))

    error = report.error
    if error and not (error.type == "SyntaxError" and local is not None):  # not twice
        add(error.line, error.column, "error", f"{error.type}: {error.message}")
    for function in report.functions:
        for call in function.calls:
            if call.error and not call.handled:
                add(
                    call.error.line,
                    call.error.column,
                    "error",
                    _("{type} in call {number}: {message}").format(
                        type=call.error.type, number=call.index + 1, message=call.error.message
                    ),
                )
    for warning in report.warnings:
        text = f"[{warning.code}] {warning.message}" + (
            "\n" + _("Fix: {fix}").format(fix=warning.fix) if warning.fix else ""
        )

        add(warning.line, 1, "warning", text)
    return found
