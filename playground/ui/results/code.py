"""Converted code tab: AutoGraph's output tied line by line to the original (a shared colour,
lit up on hover or by picking a line), and a diff of what really changed."""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ...contract import i18n
from ...contract.i18n import _
from ...contract.job import FunctionReport
from ...contract.source_info import function_source
from ...reports import line_map
from ...reports.safe_text import markdown_literal
from .. import code_diff, keys
from ..state import Result


def line_choices(source: str, first_line: int, function: FunctionReport) -> list[int]:
    """The source lines the converted code came from, in source order (0: none picked)."""
    mapped = {c.source_line for c in function.converted_code_lines}
    last = first_line + len(source.splitlines()) - 1
    return [0] + sorted(n for n in mapped if first_line <= n <= last)


def render(result: Result, function: FunctionReport | None, wide: DeltaGenerator | None = None) -> bool:
    """Returns whether it drew into `wide` (a one-element slot at the page's width)."""
    if function is None:
        st.info(_("No function was analysed: see the Problems tab."))
        return False
    if result.saved and result.report.trace is not None and not function.converted_code:
        st.info(
            _(
                "Trace mode records each trace and why, not AutoGraph's converted code: run the "
                "function here, or with `python -m playground analyze`, to see it."
            )
        )
        return False
    original, first_line = function_source(result.job.source, function.name)
    if not function.converted_code:
        st.code(original, language="python", line_numbers=True, wrap_lines=True)
        st.info(
            markdown_literal(function.conversion_note)
            if function.conversion_note
            else _("AutoGraph produced no converted code.")
        )
        return False
    lines = original.splitlines()
    selected = 0
    if function.converted_code_lines:
        selected = st.selectbox(
            _("Light up a line of your code and what AutoGraph made of it"),
            line_choices(original, first_line, function),
            key=keys.CODE_LINE,
            format_func=i18n.bound(
                lambda n: (
                    _("(hover a line to see its partners)")
                    if not n
                    else f"{n}: {lines[n - first_line].strip()[:70]}"
                )
            ),
        )
    heading = _(
        "**Your function** beside **what AutoGraph made of it** "
        "(`tf.autograph.to_code`): lines of one colour belong together."
    )
    if wide is not None:
        st.caption(_("Shown below the inputs, at the page's full width."))
    with wide.container() if wide is not None else nullcontext():
        st.markdown(heading)
        st.html(
            line_map.panes(
                original,
                first_line,
                function.converted_code,
                function.converted_code_lines,
                selected or None,
                wide=wide is not None,
            )
        )
    result_diff = code_diff.diff(original, function.converted_code)
    label = (
        _("What changed: {added} line(s) written or rewritten, {removed} of yours replaced, {kept} kept")
        if result_diff.compared
        else _("What changed: not compared, the code is over {pairs} line pairs long")
    ).format(
        added=result_diff.added,
        removed=result_diff.removed,
        kept=result_diff.kept,
        pairs=f"{code_diff.MAX_PAIRS:,}",
    )
    with st.expander(label):
        st.caption(
            _(
                "Control flow becomes ag__.if_stmt / while_stmt / for_stmt and calls become "
                "ag__.converted_call, so TF can stage them into the graph. Name loads "
                "(ag__.ld) and the FunctionScope/return wrapper are not counted as changes."
            )
        )
        st.code(result_diff.text, language="diff", wrap_lines=True)
    if function.conversion_note:
        st.caption(markdown_literal(function.conversion_note))
    return wide is not None
