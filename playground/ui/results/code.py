"""Converted code tab: AutoGraph's output beside the original, as a diff of what really changed."""
from __future__ import annotations

import streamlit as st

from ...job import FunctionReport
from .. import code_diff, source_info
from ..state import Result


def function_source(source: str, name: str) -> str:
    """The user's function, decorators included, found by name with ast; else the whole source."""
    info = next((i for i in source_info.functions(source) if i.name.split(".")[-1] == name.split(".")[-1]), None)
    if info is None:
        return source
    return "\n".join(source.splitlines()[info.first_line - 1:info.last_line])


def render(result: Result, function: FunctionReport | None) -> None:
    if function is None:
        st.info("No function was analysed: see the Problems tab.")
        return
    original = function_source(result.job.source, function.name)
    left, right = st.columns(2)
    with left:
        st.markdown("**Your function**")
        st.code(original, language="python", line_numbers=True)
    with right:
        st.markdown("**What AutoGraph made of it** (`tf.autograph.to_code`)")
        if function.converted_code:
            result_diff = code_diff.diff(original, function.converted_code)
            st.caption(f"**+** {result_diff.added} line(s) AutoGraph wrote or rewrote, **−** "
                       f"{result_diff.removed} of yours they replace, {result_diff.kept} kept. "
                       "Control flow becomes ag__.if_stmt / while_stmt / for_stmt and calls become "
                       "ag__.converted_call, so TF can stage them into the graph. Name loads "
                       "(ag__.ld) and the FunctionScope/return wrapper are not counted as changes.")
            st.code(result_diff.text, language="diff", wrap_lines=True)
        else:
            st.info(function.conversion_note or "AutoGraph produced no converted code.")
    if function.conversion_note and function.converted_code:
        st.caption(function.conversion_note)
