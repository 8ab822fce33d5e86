"""contract/source_info.py's reading of the code: one parse gives its functions and its depth,
kept for the next asker (issue 55: a refusal that parses new code parsed it twice)."""

from __future__ import annotations

import ast
import gc

import pytest

from playground.contract import job_request, source_info
from playground.contract.config import Settings
from playground.contract.job_request import FieldError, JobRequest

SETTINGS = Settings()
DEEP_LATE = "x = 1\n" * 200 + "y = " + "-" * 160 + "1\n"  # too deep at line 201, no function
UNFIT = "def f(x):\n    return x\n" + "x = 1\n" * 200


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The sources handed to Python's parser (the plan's literals are parsed with it too: only
    whole sources are counted), with no reading kept from an earlier test."""
    seen: list[str] = []
    real = ast.parse

    def counted(source, *args, **kwargs):
        seen.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(source_info.ast, "parse", counted)
    _forget()
    yield seen
    _forget()


def _forget() -> None:
    source_info.read.cache_clear()


def _sources(seen: list[str], *sources: str) -> int:
    return sum(1 for s in seen if s in sources)


def test_code_too_deep_with_a_function_asked_for_is_parsed_once(parses):
    asked = JobRequest(source=DEEP_LATE, function="f")
    with pytest.raises(FieldError) as refused:
        job_request.to_job(asked, SETTINGS, hosted=True)
    assert refused.value.field == "source"
    assert "line 201: the code is nested more than 150 levels deep" in str(refused.value)
    assert _sources(parses, DEEP_LATE) == 1


def test_a_plan_unfit_for_new_code_parses_it_once_and_not_again(parses):
    asked = JobRequest(source=UNFIT, function="f", calls=("1, 2",))
    for _ in range(3):  # a visitor's next Run, a flood of one request
        with pytest.raises(FieldError) as refused:
            job_request.to_job(asked, SETTINGS, hosted=True)
        assert refused.value.field == "calls[0]"
    assert _sources(parses, UNFIT) == 1


def test_the_pages_questions_about_one_code_parse_it_once(parses):
    """The editor's syntax check, the picker's functions, the plan's and the Run's reading."""
    for source in (UNFIT, DEEP_LATE, "def f(:\n"):
        source_info.syntax_error(source)
        source_info.functions(source)
        source_info.nesting_problem(source)
        source_info.function_source(source, "f")
    assert _sources(parses, UNFIT) == _sources(parses, DEEP_LATE) == _sources(parses, "def f(:\n") == 1


def test_a_reading_is_worded_for_each_asker_not_for_the_first():
    """The reading is kept across visitors: it holds no sentence, only what to say."""
    reading = source_info.read(DEEP_LATE)
    assert reading.too_deep and reading.deep_line == 201 and reading.functions == ()
    broken = source_info.read("def f(:\n")
    assert broken.syntax_error and broken.syntax_line == 1 and not broken.too_deep
    assert source_info.syntax_error("def f(:\n").startswith("line 1: ")
    assert source_info.read("x = '\0'\n").null_byte
    assert "null byte" in source_info.syntax_error("x = '\0'\n")


@pytest.mark.parametrize("depth", [149, 150, 151, 160])
def test_the_depth_limit_is_where_it_was(depth):
    """Module, Assign, then the value: a chain of n unary minuses is n + 3 levels deep with its
    constant; the limit counts levels below the module."""
    source = "x = " + "-" * depth + "1\n"
    tree_depth = depth + 2  # Assign 1, the minuses 2..depth+1, the constant depth+2
    assert bool(source_info.nesting_problem(source)) == (tree_depth > source_info.MAX_NESTING)


def test_the_collector_does_not_run_over_a_tree_being_read():
    """Each of a tree's nodes counts as an allocation: with the server's heap the collector's
    runs over 54 KB of short lines (one full collection every few readings) cost four times the
    parse. The tree holds no cycles, so it is read with the collector held off, then on again."""
    runs: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    source = "# held off\n" + UNFIT * 20  # 16,000 nodes: the collector ran 46 times before
    gc.callbacks.append(seen)
    try:
        assert gc.isenabled()
        source_info.functions(source)
    finally:
        gc.callbacks.remove(seen)
    # at most the one run due when it is on again, over what is left: the tree is gone by then
    assert len(runs) <= 1 and gc.isenabled()
