"""Converted code tab: AutoGraph's output beside the original, with rewritten lines marked."""
from __future__ import annotations

import streamlit as st

from ...job import FunctionReport
from .. import source_info
from ..state import Result


def function_source(source: str, name: str) -> str:
    """The user's function, decorators included, found by name with ast; else the whole source."""
    info = next((i for i in source_info.functions(source) if i.name.split(".")[-1] == name.split(".")[-1]), None)
    if info is None:
        return source
    return "\n".join(source.splitlines()[info.first_line - 1:info.last_line])


def mark_changes(original: str, converted: str) -> tuple[str, int]:
    """Diff-style text: "+" before each line AutoGraph wrote or rewrote, " " before kept ones."""
    kept = {line.strip() for line in original.splitlines() if line.strip()}
    out, changed = [], 0
    for line in converted.splitlines():
        new = bool(line.strip()) and line.strip() not in kept
        changed += new
        out.append(("+ " if new else "  ") + line)
    return "\n".join(out), changed


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
            marked, changed = mark_changes(original, function.converted_code)
            st.caption(f"Lines marked + ({changed}) were written or rewritten by AutoGraph: "
                       "Python control flow becomes ag__ calls that TF can stage into the graph.")
            st.code(marked, language="diff", wrap_lines=True)
        else:
            st.info(function.conversion_note or "AutoGraph produced no converted code.")
    if function.conversion_note and function.converted_code:
        st.caption(function.conversion_note)
