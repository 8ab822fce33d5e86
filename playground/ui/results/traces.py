"""Traces tab: which call traced and why, cumulative tracing count, TF's warning, signatures; in
function mode, the module's own calls to the entry, counted apart from the plan's; and the
functions libraries made for the program, grouped by maker."""

from __future__ import annotations

import streamlit as st

from ...contract.i18n import _
from ...contract.job import FunctionReport, ModuleRun
from ...reports import tables
from ...reports.figures import tracing_figure
from ...reports.safe_text import code_span, markdown_literal
from ...reports.tables import timeline_rows
from .. import folded, keys, memo


def render(
    function: FunctionReport | None,
    made_by_libraries: list[FunctionReport],
    module: ModuleRun | None = None,
) -> None:
    if module is not None:
        module_run(module)
    if function is None or not function.calls:
        if not made_by_libraries:
            st.info(_("No calls ran. Add calls to the plan (one per line) and run again."))
    else:
        own(function, tables.shared_count_note(module, function))
    if made_by_libraries:
        libraries(made_by_libraries)


def module_run(module: ModuleRun) -> None:
    """Function mode: the module's own calls to the entry before the plan (TF's retracing
    warning counts them), and whether the plan runs a tf.function the playground made."""
    before = tables.before_plan(module)
    if before:
        st.info(markdown_literal(before))
    for warning in module.retracing_warnings:
        st.warning(
            _("TensorFlow's own retracing warning fired while the module-level code ran:")
            + "\n\n"
            + markdown_literal(warning)
        )
    wrapped = tables.wrapped_note(module)
    if wrapped:
        st.info(markdown_literal(wrapped))
    if before or wrapped:
        st.caption(_("The table and chart below count the plan's calls only."))


def libraries(functions: list[FunctionReport]) -> None:
    """The tf.functions libraries made for the program, one folded panel per maker: Keras's
    train step that retraces on a new batch shape is here, with the user's line that called fit."""
    st.markdown(_("**Made by libraries for your code** ({n})").format(n=len(functions)))
    for place, (maker, made) in enumerate(tables.by_maker(functions)):
        box = folded.expander(
            markdown_literal(tables.maker_heading(maker, made)), f"{keys.LIBRARY_MAKER}_{place}"
        )
        if box is None:
            continue
        with box:
            for function, count in tables.alike(made):
                title = function.name if count == 1 else f"{function.name} ×{count}"
                st.markdown(
                    _("{name}: {traces} trace(s) in {calls} call(s)").format(
                        name=code_span(title),
                        traces=function.tracing_count,
                        calls=tables.calls_made(function),
                    )
                )
                if function.calls:
                    st.dataframe(tables.timeline_rows(function), hide_index=True, width="stretch")
                if function.calls_not_listed:
                    st.caption(
                        _("{n} call(s) reused a trace and are not listed").format(n=function.calls_not_listed)
                    )


def own(function: FunctionReport, shared_count: str = "") -> None:
    """shared_count: why TF's warning counts more calls than the plan made, if it does."""
    st.dataframe(timeline_rows(function), hide_index=True, width="stretch")
    if function.calls_not_listed:  # a saved trace report lists the calls that traced, counts all
        st.caption(_("{n} call(s) reused a trace and are not listed").format(n=function.calls_not_listed))
    st.plotly_chart(memo.figure(tracing_figure, function), key=keys.TRACE_CHART, width="stretch")
    for warning in function.retracing_warnings:
        st.warning(_("TensorFlow's own retracing warning fired:") + "\n\n" + markdown_literal(warning))
    if shared_count:
        st.caption(markdown_literal(shared_count))
    st.markdown(
        _("**Concrete functions** ({n}): one graph per signature").format(n=len(function.concrete_signatures))
    )
    if function.concrete_signatures:
        st.code("\n".join(function.concrete_signatures), language="text", wrap_lines=True)
