"""Every gallery example runs through the real engine, and its live claim checks hold on TF 2.21.

The expectations are facts measured on TF 2.21 (shared/DESIGN.md), several of which contradict
the seed article; the check mechanism itself is tested against a report that breaks them."""

from __future__ import annotations

import dataclasses

import pytest

from playground import gallery
from playground.contract import i18n
from playground.contract.job import ErrorInfo, Report
from playground.gallery.recorded import recorded

pytest.importorskip("tensorflow")
import tf_facts

from playground.engine.pipeline import analyze


def story(report: Report) -> tuple:
    """What a recording must share with a live run: outcome, every function's calls and
    traces, and the pitfalls found (not times, devices or output digits)."""
    return (
        report.status,
        report.error.type if report.error else None,
        [(f.name, f.tracing_count, [(c.retraced, c.reason) for c in f.calls]) for f in report.functions],
        sorted((w.code, w.line) for w in report.warnings),
    )


@pytest.mark.parametrize("example", gallery.EXAMPLES, ids=lambda e: e.slug)
def test_example_behaves_as_expected(example):
    report = analyze(example.job())
    # The page draws the recording before any Run: it must tell this run's story, in each language.
    for language in i18n.LANGUAGES:
        held = recorded(example.slug, language)
        assert held is not None, f"no recording for {example.slug}: run scripts/record_gallery.py"
        assert story(held) == story(report), f"{example.slug} ({language}): re-record it"
    failed = [c for c in gallery.check(example, report) if not c.holds]
    if example.slug in tf_facts.GALLERY_DIFFERS:  # this version behaves otherwise: still so?
        assert failed, f"{example.slug} now holds on TF {tf_facts.tf.__version__}"
        return
    assert not failed, f"{example.slug}: {failed}\n{report.message}"


def test_every_example_checks_something_and_fixes_exist():
    for example in gallery.EXAMPLES:
        assert gallery.check.__name__ and example.explanation and example.article_claim
        assert dataclasses.astuple(example.expect) != dataclasses.astuple(gallery.Expectation())
        if example.fixed_by:
            fixed = gallery.BY_SLUG[example.fixed_by]
            assert fixed.expect.no_warnings or fixed.expect.error_type == ""
    assert gallery.EXAMPLES[0].slug == "retracing"


def test_checks_fail_when_the_run_disagrees():
    example = gallery.BY_SLUG["retracing"]
    report = analyze(example.job(calls=("float32[3]",)))
    broken = dataclasses.replace(report, error=ErrorInfo("ValueError", "x"), warnings=[])
    results = {c.what: c for c in gallery.check(example, broken)}
    assert results["tracing count"].actual == "1" and not results["tracing count"].holds
    assert results["error"].actual == "ValueError" and not results["error"].holds
    assert not results["warning print-at-trace"].holds


@pytest.mark.parametrize(
    "slug, fact",
    [
        ("relax-shapes-rank", "3 traces, not the article's 2"),
        ("side-effect-numpy", "AttributeError, not one collected element"),
        ("cond-branch-shapes", "no error, not ValueError"),
    ],
)
def test_article_claims_that_do_not_hold(slug, fact):
    example = gallery.BY_SLUG[slug]
    report: Report = analyze(example.job())
    if slug == "relax-shapes-rank":
        assert report.tracing_count == 3, fact
    elif slug == "side-effect-numpy":
        assert f"{tf_facts.GRAPH_TENSOR} object has no attribute 'numpy'" in report.error.message, fact
    else:
        assert report.status == "ok" and report.functions[0].calls[0].error is None, fact
