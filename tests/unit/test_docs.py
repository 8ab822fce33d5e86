"""The README stays a five-minute read that links to everything moved out of it, and the docs
stay true to the code: every link resolves, every setting is documented, and the claims table
is the recorded one."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import repo_paths

from playground.contract.config import Settings
from playground.reports.claims import ClaimTable, render_markdown

ROOT = repo_paths.ROOT
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in path.read_text().splitlines() if line.startswith("#")}


def test_the_readme_is_a_five_minute_read():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, len(lines)
    for heading in ("## Quick start", "## A short tour", "## The CLI", "## Configuration", "## Performance"):
        assert heading in lines, heading
    assert "![" in README.read_text()  # the screenshot


def test_the_readme_links_every_doc():
    linked = {m for m in LINK.findall(README.read_text()) if m.startswith("docs/")}
    linked = {m.split("#")[0] for m in linked}
    assert {f"docs/{p.name}" for p in DOCS} <= linked


@pytest.mark.parametrize("page", [README] + DOCS, ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # http(s):, mailto:
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name}: {target}"


def test_the_configuration_doc_names_every_setting():
    doc = (ROOT / "docs" / "configuration.md").read_text()
    missing = [
        f"PLAYGROUND_{f.name.upper()}"
        for f in dataclasses.fields(Settings)
        if f"`PLAYGROUND_{f.name.upper()}`" not in doc
    ]
    assert not missing, missing


def test_the_claims_doc_is_the_recorded_table():
    recorded = ClaimTable.from_json((ROOT / "playground" / "gallery" / "claims_by_version.json").read_text())
    doc = (ROOT / "docs" / "claims.md").read_text()
    table = "\n".join(line for line in doc.splitlines() if line.startswith("|"))
    assert table == render_markdown(recorded)
    assert recorded.measured_on and recorded.measured_on in doc


def test_ci_runs_the_readmes_test_command():
    """CI runs what a newcomer is told to run (the developers' guide asks it of .ci/run)."""
    command = "/opt/tf-playground/venv/bin/python -m pytest"
    ci = [
        line
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if command in line and not line.startswith("#")
    ]
    readme = [line for line in README.read_text().splitlines() if command in line]
    assert len(ci) == 1 and readme, (ci, readme)
    run_by_ci = ci[0].split(command, 1)[1].strip()
    assert run_by_ci in [line.split(command, 1)[1].split("#")[0].strip() for line in readme]
