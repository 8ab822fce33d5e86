"""The article's order (playground/gallery/article.py) against the seed article itself, and the
verdict a run gives on the article's claim."""

from __future__ import annotations

import dataclasses
import re

import pytest
import repo_paths

from playground import gallery
from playground.contract.job import ErrorInfo, Report
from playground.gallery import article

# The seed is the team's shared file, not the repo's: beside the checkout, or inside it.
SEED = (
    next(
        (
            p
            for p in (repo_paths.ROOT / "shared", repo_paths.ROOT.parent / "shared")
            if (p / "seed" / "tf-function-autograph.txt").exists()
        ),
        repo_paths.ROOT.parent / "shared",
    )
    / "seed"
    / "tf-function-autograph.txt"
)
DATA = repo_paths.DATA
# tf-print reuses 2.1's process() to show 3.1's rule "print() runs while tracing, tf.print() on
# every execution"; its function is the seed's, its point is the later section's.
SHOWN_LATER = {"tf-print"}


@pytest.fixture(scope="module")
def seed() -> str:
    if not SEED.exists():
        pytest.skip(f"the seed article is not at {SEED}")
    return SEED.read_text(encoding="utf-8")


def spans(seed: str) -> dict[str, tuple[int, int]]:
    """Each section's stretch of the seed: from its heading to the next listed heading."""
    starts = [seed.index(s.seed_heading) for s in article.SECTIONS] + [len(seed)]
    return {s.number: (starts[i], starts[i + 1]) for i, s in enumerate(article.SECTIONS)}


def test_the_order_holds_every_gallery_example_once() -> None:
    assert sorted(article.ORDER) == sorted(e.slug for e in gallery.EXAMPLES)
    assert len(set(article.ORDER)) == len(article.ORDER)


def test_sections_follow_the_seed_in_its_order(seed: str) -> None:
    for section in article.SECTIONS:
        assert seed.count(section.seed_heading) == 1, section.seed_heading
    positions = [seed.index(s.seed_heading) for s in article.SECTIONS]
    assert positions == sorted(positions)


def test_examples_sit_where_the_seed_defines_their_functions(seed: str) -> None:
    """An example whose function the seed defines belongs to that section, and a section's
    examples come in the order the seed defines them."""
    bounds = spans(seed)
    for section in article.SECTIONS:
        start, end = bounds[section.number]
        found = []
        for slug in section.slugs:
            names = re.findall(r"^\s*def (\w+)\(", gallery.BY_SLUG[slug].source, re.M)
            places = [m.start() for n in names for m in re.finditer(rf"def {n}\(", seed)]
            if not places or slug in SHOWN_LATER:
                continue
            inside = [p for p in places if start <= p < end]
            assert inside, f"{slug}: the seed defines {names} outside §{section.number}"
            found.append((min(inside), slug))
        assert [s for _, s in sorted(found)] == [s for _, s in found], section.number


def test_neighbours_step_through_the_order_and_stop_at_its_ends() -> None:
    order = article.ORDER
    assert [article.neighbour(s, 1) for s in order[:-1]] == list(order[1:])
    assert [article.neighbour(s, -1) for s in order[1:]] == list(order[:-1])
    assert article.neighbour(order[0], -1) is None and article.neighbour(order[-1], 1) is None
    assert article.neighbour("not-an-example", 1) == order[0]


def test_contradicted_examples_are_gallery_examples() -> None:
    assert article.ARTICLE_CONTRADICTED <= set(article.ORDER)


def test_verdict_of_a_recorded_run_and_of_one_that_breaks_the_expectation() -> None:
    example = gallery.BY_SLUG["retracing"]
    report = Report.from_json((DATA / "retracing.json").read_text())
    found = article.verdict(example, report)
    assert found.kind == "holds" and found.checks[0].actual == str(report.tracing_count)
    broken = dataclasses.replace(report, error=ErrorInfo("ValueError", "x"))
    assert article.verdict(example, broken).kind == "unexpected"
    # The same run, read as an example the article gets wrong, answers "does not hold".
    contradicted = dataclasses.replace(example, slug=sorted(article.ARTICLE_CONTRADICTED)[0])
    assert article.verdict(contradicted, report).kind == "does-not-hold"
