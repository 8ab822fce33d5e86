"""HLO under XLA: the module as XLA takes it, then its passes one by one (what each changed),
a diff of any two, and a search through them all."""

from __future__ import annotations

import streamlit as st

from ...contract.i18n import _
from ...contract.job import FunctionReport
from ...contract.options import BY_NAME
from ...reports import failure, hlo_passes
from ...reports.safe_text import markdown_literal
from .. import keys

PASSES_LABEL = BY_NAME["passes"].label  # named by the Graph tab's hint too


def render(function: FunctionReport, jit_compile: bool = False) -> None:
    """jit_compile: the run had it on, or the code asks for it: then a missing HLO is a compile
    that failed, and the tab says why instead of asking for what the code already does."""
    if not function.hlo:
        if jit_compile or failure.jit_compiled(function):
            reason = failure.no_hlo_reason(function)
            st.warning(
                markdown_literal(
                    _("No XLA HLO: the compile with jit_compile=True failed: {reason}").format(reason=reason)
                    if reason
                    else _("No XLA HLO: no call compiled with jit_compile=True succeeded.")
                )
            )
        else:
            st.caption(_("Turn on jit_compile to see the XLA HLO."))
        return
    with st.expander(_("XLA HLO (jit_compile=True)")):
        st.code(function.hlo, language="text", wrap_lines=True)
    passes = function.hlo_passes
    if not passes:
        if function.xla_cost is None:  # asked for, a process without XLA's dump has no passes
            st.caption(
                _('Turn on "{option}" to see what each of XLA\'s passes does.').format(option=_(PASSES_LABEL))
            )
        return
    with st.expander(_("XLA's passes, one by one")):
        st.markdown(markdown_literal(hlo_passes.summary(function)))
        st.caption(
            _(
                "XLA's own dump: the module at each pipeline's start and after each pass that "
                "changed it, in the order XLA ran them. Passes that changed nothing are not dumped."
            )
        )
        st.dataframe(hlo_passes.rows(passes), hide_index=True, width="stretch")
        last = len(passes) - 1

        def pick(where, label: str, key: str, index: int) -> int:
            return where.selectbox(
                label,
                range(len(passes)),
                index=index,
                key=key,
                format_func=lambda i: hlo_passes.label(passes, i),
            )

        picked = pick(st, _("What one pass changed"), keys.HLO_PASS, last)
        st.code(hlo_passes.change_of(passes, picked), language="diff", wrap_lines=True)
        c1, c2 = st.columns(2)
        a, b = pick(c1, _("Compare"), keys.HLO_COMPARE_A, 0), pick(c2, _("with"), keys.HLO_COMPARE_B, last)
        label_a, label_b = hlo_passes.label(passes, a), hlo_passes.label(passes, b)
        st.code(hlo_passes.diff(passes[a], passes[b], label_a, label_b), language="diff", wrap_lines=True)
        term = st.text_input(_("Find in every pass's HLO"), key=keys.HLO_SEARCH, max_chars=200)
        if term:
            found = hlo_passes.search(passes, term)
            st.caption(
                _("In {n} of {total} snapshots: {where}").format(
                    n=len(found),
                    total=len(passes),
                    where=", ".join(_("#{i} ({hits} lines)").format(i=i, hits=hits) for i, hits in found[:40])
                    or _("none"),
                )
            )
