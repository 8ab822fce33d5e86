"""The gallery's claims x TensorFlow versions table, as `python -m playground claims --json`
recorded it (playground/gallery/claims_by_version.json): measured once, not on every page view."""

from __future__ import annotations

import functools
import os

import streamlit as st

from ..contract.i18n import _, _p
from ..reports.claims import ClaimTable
from . import folded, keys

RECORDED = os.path.join(os.path.dirname(os.path.dirname(__file__)), "gallery", "claims_by_version.json")


@functools.lru_cache(maxsize=1)
def recorded(path: str = RECORDED) -> ClaimTable | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return ClaimTable.from_json(handle.read())
    except (OSError, ValueError):
        return None


def rows(table: ClaimTable, example: str = "") -> list[dict]:
    """One dict per check (of one example, or all), a column per version."""
    holds, fails = _p("verdict", "holds"), _("fails")  # a cell, not the column "holds"
    out = []
    for row in table.rows:
        if example and row.example != example:
            continue
        line = {_("example"): row.example, _("check"): row.what, _("expected"): row.expected}
        for version in table.versions:
            m = row.results.get(version)
            line[f"TF {version}"] = f"{holds if m.holds else fails}: {m.actual}" if m else "-"
        line[_("changed between")] = "; ".join(row.changes)
        out.append(line)
    return out


def claims_panel(example: str) -> None:
    table = recorded()
    if table is None:
        return
    panel = folded.expander(_("Claims × TensorFlow versions"), keys.CLAIMS_PANEL)
    if panel is None:  # drawn only when opened: a hidden table still costs every rerun
        return
    with panel:
        st.caption(
            _(
                "Every gallery claim checked on TensorFlow {versions} (measured {date} with "
                "`python -m playground claims`)."
            ).format(versions=", ".join(table.versions), date=table.measured_on or "?")
        )
        only = st.toggle(_("Only this example"), value=True, key=keys.CLAIMS_TABLE)
        changed = [r for r in table.rows if r.changes]
        st.markdown(
            _("{changed} of {total} checks changed between versions.").format(
                changed=len(changed), total=len(table.rows)
            )
        )
        st.dataframe(rows(table, example if only else ""), hide_index=True, width="stretch")
