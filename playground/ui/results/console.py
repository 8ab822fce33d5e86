"""Console tab: what the module's own top-level code printed (function mode), then trace-time
print() and tf.print output, per call."""

from __future__ import annotations

import streamlit as st

from ...contract.i18n import _
from ...contract.job import FunctionReport, Report
from ...reports.safe_text import code_span


def render(report: Report, function: FunctionReport | None) -> None:
    st.caption(_("Python print() runs only while tracing; tf.print runs on every call."))
    module = report.module
    if module is not None and module.stdout:
        st.markdown(_("**Module-level code** (the file's own top-level code, run before the plan's calls)"))
        st.code(module.stdout, language="text")
    if function is not None:
        for call in function.calls:
            traced = _(" · traced") if call.retraced else ""
            st.markdown(
                _("**Call {number}:** {args}{traced}").format(
                    number=call.index + 1, args=code_span(call.args), traced=traced
                )
            )
            st.code(call.stdout or _("(no output)"), language="text")
    printed = function is not None and any(c.stdout for c in function.calls)
    if report.stdout and not printed and report.stdout != (module.stdout if module else None):
        st.markdown(_("**Whole run**"))

        st.code(report.stdout, language="text")
