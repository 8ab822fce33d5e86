"""The source and its converted code side by side, tied line to line as Compiler Explorer ties
source and assembly: lines that belong together share a colour, and hovering one lights up the
others (CSS :has(), so no script runs in the page). Pure HTML building; no Streamlit here."""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..contract.job import CodeLine

# Pastel backgrounds readable under dark text, in the order lines are first mapped.
PALETTE = (
    "#fde2e4",
    "#e2ecf9",
    "#e4f4e4",
    "#fff1c9",
    "#efe2f7",
    "#dff5f3",
    "#fbe5d6",
    "#e8e8f8",
    "#f2f7d9",
    "#f9dff0",
)


def colours(code_lines: Sequence[CodeLine]) -> dict[int, str]:
    """Source line -> its colour, given in the order the converted code first uses each line."""
    out: dict[int, str] = {}
    for mapped in code_lines:
        if mapped.source_line not in out:
            out[mapped.source_line] = PALETTE[len(out) % len(PALETTE)]
    return out


def _row(number: int, text: str, source_line: int | None, colour: str, selected: bool) -> str:
    # Line numbers come from a report: int() keeps them numbers in a class name and a title.
    source_line = int(source_line) if source_line is not None else None
    classes = (
        ["lm-row"]
        + ([f"lm-s{source_line}"] if source_line is not None else [])
        + (["lm-selected"] if selected else [])
    )
    style = f' style="background:{colour}"' if colour else ""
    title = f' title="line {source_line} of your code"' if source_line is not None else ""
    return (
        f'<div class="{" ".join(classes)}"{style}{title}><span class="lm-num">{int(number)}</span>'
        f"{html.escape(text) or ' '}</div>"
    )


def panes(
    source: str,
    first_line: int,
    converted: str,
    code_lines: Sequence[CodeLine],
    selected: int | None = None,
    wide: bool = False,
) -> str:
    """HTML of both panes. `source` is the user's function starting at `first_line` of their
    file; `selected` is a source line to light up with every converted line it made. `wide`:
    the page's full width, where the source pane takes its lines' own width (up to 60%) and the
    converted code the rest."""
    palette = colours(code_lines)
    origin = {c.line: c.source_line for c in code_lines}
    left = [
        _row(
            first_line + i, text, first_line + i, palette.get(first_line + i, ""), selected == first_line + i
        )
        for i, text in enumerate(source.splitlines())
    ]
    right = [
        _row(
            i,
            text,
            origin.get(i),
            palette.get(origin.get(i, -1), ""),
            selected is not None and origin.get(i) == selected,
        )
        for i, text in enumerate(converted.splitlines(), 1)
    ]
    hover = "".join(
        f".lm:has(.lm-s{int(n)}:hover) .lm-s{int(n)}{{outline:2px solid #444;outline-offset:-2px}}"
        for n in palette
    )
    dim = ".lm.lm-has-selection .lm-row:not(.lm-selected){opacity:.45}" if selected else ""
    return (
        f"<style>{_CSS}{hover}{dim}</style>"
        f'<div class="lm{" lm-has-selection" if selected else ""}{" lm-wide" if wide else ""}">'
        f'<div class="lm-pane lm-source">{"".join(left)}</div>'
        f'<div class="lm-pane lm-converted">{"".join(right)}</div></div>'
    )


# Soft wrap (issue 42): a long line goes on under its own text, its number alone in the
# margin, so `ag__.if_stmt(...)` is read in full instead of cut at the pane's edge.
_CSS = (
    ".lm{display:flex;gap:12px;align-items:flex-start}"
    ".lm-pane{border:1px solid #ddd;border-radius:6px;padding:6px 0;"
    "font-family:'Source Code Pro',ui-monospace,monospace;font-size:.8rem;line-height:1.45}"
    ".lm-source{flex:2;min-width:0}.lm-converted{flex:3;min-width:0}"
    ".lm-wide .lm-source{flex:0 0 auto;max-width:60%}.lm-wide .lm-converted{flex:1 1 0}"
    ".lm-row{white-space:pre-wrap;overflow-wrap:anywhere;padding:0 8px 0 calc(8px + 2.6em);"
    "text-indent:-2.6em;box-sizing:border-box}"
    ".lm-num{display:inline-block;width:2.6em;text-indent:0;color:#999;user-select:none}"
    ".lm-selected{outline:2px solid #d62728;outline-offset:-2px}"
    # A phone: side by side, each pane was a column of 12 characters; one above the other.
    "@media (max-width:640px){.lm{flex-direction:column;align-items:stretch}"
    ".lm .lm-pane{flex:0 0 auto;max-width:none}}"
)
