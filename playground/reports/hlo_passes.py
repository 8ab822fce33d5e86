"""XLA's passes over one function's module, for every front-end: the list in XLA's order with
what each changed, a diff between any two snapshots, and a search through them."""

from __future__ import annotations

import difflib

from ..contract.i18n import _
from ..contract.job import FunctionReport, HloPass

MAX_DIFF_LINES = 2_000  # a diff past it is cut, with a line that says so


def label(passes: list[HloPass], index: int) -> str:
    """ "7 · simplification / algsimp (12 -> 6 instructions)"."""
    p = passes[index]
    before = passes[index - 1].instructions if index else p.instructions
    name = p.name or _("(start)")
    if index == 0:
        counts = _("{n} instructions").format(n=p.instructions)
    elif before != p.instructions:
        counts = _("{before} -> {after} instructions").format(before=before, after=p.instructions)
    else:
        counts = _("{n} instructions, rewritten").format(n=p.instructions)
    return f"{index} · {p.pipeline} / {name} ({counts})"


def rows(passes: list[HloPass]) -> list[dict]:
    return [
        {
            "#": i,
            _("pipeline"): p.pipeline,
            _("pass"): p.name or _("(start)"),
            _("instructions"): p.instructions,
            _("change"): p.instructions - (passes[i - 1].instructions if i else p.instructions),
        }
        for i, p in enumerate(passes)
    ]


def diff(a: HloPass, b: HloPass, a_name: str = "a", b_name: str = "b") -> str:
    """A unified diff of two snapshots' HLO; says so when either text was over the cap."""
    if not a.hlo or not b.hlo:
        return _("One of these snapshots is over the report's size cap: only its counts were kept.")
    lines = list(
        difflib.unified_diff(a.hlo.splitlines(), b.hlo.splitlines(), a_name, b_name, lineterm="", n=2)
    )
    if not lines:
        return _("The two snapshots are the same text.")
    if len(lines) > MAX_DIFF_LINES:
        cut = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], _("... {n} more lines of the diff not shown").format(n=cut)]
    return "\n".join(lines)


def change_of(passes: list[HloPass], index: int) -> str:
    """What pass `index` did to the module: the diff against the snapshot before it."""
    if index == 0:
        return passes[0].hlo
    return diff(passes[index - 1], passes[index], label(passes, index - 1), label(passes, index))


def search(passes: list[HloPass], term: str) -> list[tuple[int, int]]:
    """(index, lines containing `term`) for each snapshot whose HLO has it."""
    found = []
    for i, p in enumerate(passes):
        hits = sum(term in line for line in p.hlo.splitlines())
        if hits:
            found.append((i, hits))
    return found


def summary(function: FunctionReport) -> str:
    """One line: how many passes changed the module, and its size before and after."""
    cost, passes = function.xla_cost, function.hlo_passes
    if not passes or cost is None:
        return ""
    changed = sum(1 for p in passes if p.name)
    return _(
        "{changed} XLA passes changed the module: {before} -> {after} HLO instructions, in {ms:.1f} ms."
    ).format(
        changed=changed, before=cost.instructions, after=cost.instructions_optimized, ms=cost.compile_s * 1000
    )


def same_passes(a: list[HloPass], b: list[HloPass]) -> list[tuple[int, int]]:
    """The snapshots two sides of a compare both have: the same pass of the same pipeline, the
    n-th time it changed the module on each side, as (index in a, index in b)."""

    def keyed(passes: list[HloPass]) -> dict[tuple[str, str, int], int]:
        seen: dict[tuple[str, str], int] = {}
        out = {}
        for i, p in enumerate(passes):
            n = seen[(p.pipeline, p.name)] = seen.get((p.pipeline, p.name), 0) + 1
            out[(p.pipeline, p.name, n)] = i
        return out

    on_b = keyed(b)
    return [(i, on_b[key]) for key, i in keyed(a).items() if key in on_b]
