"""Console tab: trace-time print() and tf.print output, per call."""
from __future__ import annotations

import streamlit as st

from ...job import FunctionReport, Report


def render(report: Report, function: FunctionReport | None) -> None:
    st.caption("Python print() runs only while tracing; tf.print runs on every call.")
    if function is not None:
        for call in function.calls:
            traced = " · traced" if call.retraced else ""
            st.markdown(f"**Call {call.index + 1}:** `{call.args}`{traced}")
            st.code(call.stdout or "(no output)", language="text")
    if report.stdout and (function is None or not any(c.stdout for c in function.calls)):
        st.markdown("**Whole run**")
        st.code(report.stdout, language="text")
