"""The gallery's claims x TensorFlow versions table, as `python -m playground claims --json`
recorded it (playground/gallery/claims_by_version.json): measured once, not on every page view."""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

import streamlit as st

from ..contract.i18n import _, _p
from ..reports.claims import ClaimTable
from . import folded, keys

if TYPE_CHECKING:  # what st.column_config.* returns; Streamlit exports it under no public name
    from streamlit.elements.lib.column_types import ColumnConfig

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
        order, widths = columns(table, every_example=not only)
        st.dataframe(
            rows(table, example if only else ""),
            hide_index=True,
            width="stretch",
            column_order=order,
            column_config=widths,
        )


def columns(table: ClaimTable, every_example: bool) -> tuple[list[str], dict[str, ColumnConfig]]:
    """The order the table shows its columns in, and their widths. The panel is the inputs'
    column, about 490 px at 1400x900: the versions' verdicts come right after the check, each
    as wide as "holds: reported", so that all of them are in view; what was expected and what
    changed follow, a scroll away. One example's table leaves out its example column (the
    same slug on every row)."""
    versions = [f"TF {version}" for version in table.versions]
    order = [_("check"), *versions, _("expected"), _("changed between")]
    widths: dict[str, ColumnConfig] = {_("check"): st.column_config.TextColumn(width=140, pinned=True)}
    widths.update({name: st.column_config.TextColumn(width=105) for name in versions})
    if every_example:
        order.insert(0, _("example"))
        widths[_("example")] = st.column_config.TextColumn(width=120, pinned=True)
    return order, widths
