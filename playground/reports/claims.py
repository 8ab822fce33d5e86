"""Claims x versions: every gallery example's claim checks, run on every installed TF version,
and where a measured value changed from one version to the next.

Runs the examples through an executor (the sandbox), never TensorFlow in this process, so the
table can be made by the CLI (`python -m playground claims`) and read by the app.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import gallery
from ..contract import versions
from ..contract.i18n import _, _p
from ..contract.job import Job, Report, from_dict

Submit = Callable[[Job], Report]


@dataclass(frozen=True)
class Measured:
    actual: str
    holds: bool


@dataclass(frozen=True)
class ClaimRow:
    example: str  # gallery slug
    what: str  # "tracing count", "error", ...
    expected: str  # what the gallery expects (measured on 2.21)
    results: dict[str, Measured]  # TF version -> what that version did
    changes: list[str] = field(default_factory=list)  # "2.15.1 -> 2.21.0: 2 -> 3"


@dataclass(frozen=True)
class ClaimTable:
    versions: list[str]  # oldest first
    rows: list[ClaimRow]
    measured_on: str = ""  # a date, set by whoever records the table

    def to_json(self, **kwargs: object) -> str:
        return json.dumps(dataclasses.asdict(self), **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_json(cls, text: str) -> ClaimTable:
        return from_dict(cls, json.loads(text))


def measure(
    submit: Submit, tf_versions: list[versions.TFVersion], examples: list[gallery.Example] | None = None
) -> ClaimTable:
    """Runs each example on each version (job.tf_version) and lines the checks up by version."""
    ordered = sorted(tf_versions, key=lambda v: versions.version_key(v.version))
    rows: dict[tuple[str, str], dict] = {}
    for example in examples if examples is not None else gallery.EXAMPLES:
        for version in ordered:
            report = submit(example.job(tf_version="" if version.default else version.version))
            for check in _checks(example, report):
                row = rows.setdefault((example.slug, check.what), {"expected": check.expected, "results": {}})
                row["results"][version.version] = Measured(check.actual, check.holds)
    names = [v.version for v in ordered]
    return ClaimTable(
        names,
        [
            ClaimRow(slug, what, row["expected"], row["results"], changes(names, row["results"]))
            for (slug, what), row in rows.items()
        ],
    )


def _checks(example: gallery.Example, report: Report) -> list[gallery.ClaimCheck]:
    """The example's checks; a run that did not complete (timeout, sandbox) is one failed row."""
    if report.status in ("timeout", "memory", "killed"):
        return [gallery.ClaimCheck("run", "completes", report.status, False)]
    return gallery.check(example, report)


def changes(names: list[str], results: dict[str, Measured]) -> list[str]:
    """Between which consecutive measured versions the value (or whether it holds) changed."""
    seen = [(n, results[n]) for n in names if n in results]
    return [
        f"{a} -> {b}: {ma.actual} -> {mb.actual}"
        for (a, ma), (b, mb) in zip(seen, seen[1:])
        if ma.actual != mb.actual or ma.holds != mb.holds
    ]


def render_text(table: ClaimTable) -> str:
    holds, fails = _p("verdict", "holds"), _("FAILS")  # a cell, not the column "holds"
    lines = [_("Gallery claims on TensorFlow {versions}").format(versions=", ".join(table.versions))]
    for row in table.rows:
        cells = [
            f"{v}: {holds if m.holds else fails} ({m.actual})"
            for v, m in ((v, row.results.get(v)) for v in table.versions)
            if m is not None
        ]
        lines.append(
            _("{example} / {check} (expected {expected}): {cells}").format(
                example=row.example, check=row.what, expected=row.expected, cells="; ".join(cells)
            )
        )
        lines += ["    " + _("changed between {change}").format(change=c) for c in row.changes]
    return "\n".join(lines)


def render_markdown(table: ClaimTable) -> str:
    """The README's table: one row per check, one column per version."""
    head = (
        "| example | check | expected | "
        + " | ".join(f"TF {v}" for v in table.versions)
        + " | changed between |"
    )
    lines = [head, "|" + " --- |" * (4 + len(table.versions))]
    for row in table.rows:
        cells = [
            (("holds" if m.holds else "**fails**") + f": {m.actual}") if m else "-"
            for m in (row.results.get(v) for v in table.versions)
        ]
        lines.append(
            f"| `{row.example}` | {row.what} | {row.expected} | "
            + " | ".join(_cell(c) for c in cells)
            + f" | {_cell('; '.join(row.changes))} |"
        )
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:80]
