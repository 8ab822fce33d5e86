"""Converted code tab: AutoGraph's output beside the original, with rewritten lines marked."""
from __future__ import annotations

import streamlit as st

from ...job import FunctionReport
from ..state import Result


def function_source(source: str, name: str, line: int | None) -> str:
    """The user's function from its def line to the next top-level statement."""
    lines = source.splitlines()
    if not line or line > len(lines):
        return source
    start = line - 1
    while start > 0 and lines[start - 1].lstrip().startswith("@"):
        start -= 1
    end = line
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "#")):
        end += 1
    return "\n".join(lines[start:end]).rstrip()


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
    original = function_source(result.job.source, function.name, function.line)
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
            st.code(marked, language="diff")
        else:
            st.info(function.conversion_note or "AutoGraph produced no converted code.")
    if function.conversion_note and function.converted_code:
        st.caption(function.conversion_note)
