"""Traces tab: which call traced and why, cumulative tracing count, TF's warning, signatures."""

from __future__ import annotations

import streamlit as st

from ...contract.i18n import _
from ...contract.job import FunctionReport
from ...reports.figures import tracing_figure
from ...reports.safe_text import markdown_literal
from ...reports.tables import timeline_rows
from .. import keys


def render(function: FunctionReport | None) -> None:
    if function is None or not function.calls:
        st.info(_("No calls ran. Add calls to the plan (one per line) and run again."))
        return
    st.dataframe(timeline_rows(function), hide_index=True, width="stretch")
    st.plotly_chart(tracing_figure(function), key=keys.TRACE_CHART, width="stretch")
    for warning in function.retracing_warnings:
        st.warning(_("TensorFlow's own retracing warning fired:") + "\n\n" + markdown_literal(warning))
    st.markdown(
        _("**Concrete functions** ({n}): one graph per signature").format(n=len(function.concrete_signatures))
    )
    if function.concrete_signatures:
        st.code("\n".join(function.concrete_signatures), language="text", wrap_lines=True)
