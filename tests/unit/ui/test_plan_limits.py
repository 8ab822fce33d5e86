"""ui/plan.py's check of the plan as it is typed obeys Run's sizes and counts first, with Run's
words, and parses no line of a plan they refuse (issue 55: a 64 KB literal typed into the page
was parsed in the page's process on every rerun)."""

from __future__ import annotations

import pytest

from playground.contract import job_request
from playground.contract.config import Settings
from playground.contract.job_request import FieldError, JobRequest
from playground.ui import plan

F_OF_ANY = "def f(*args, **kwargs):\n    return 1\n"
LITERAL = "[" + ",".join(["1"] * 32_000) + "]"  # 64 KB: about 50 ms to parse


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """The plan's lines handed to the grammar's parser."""
    seen: list[str] = []
    real = job_request.specs.parse_call
    monkeypatch.setattr(
        job_request.specs, "parse_call", lambda text, **k: seen.append(text) or real(text, **k)
    )
    return seen


def _runs_refusal(lines: list[str]) -> str:
    with pytest.raises(FieldError) as refused:
        job_request.to_job(
            JobRequest(source=F_OF_ANY, function="f", calls=tuple(lines)), Settings(), hosted=True
        )
    return str(refused.value)


@pytest.mark.parametrize(
    "lines",
    [[LITERAL], ["1"] * 10 + [LITERAL], ["x"] * (Settings().max_calls + 1)],
    ids=["64 KB literal", "after 10 lines", "too many calls"],
)
def test_a_plan_over_runs_limits_is_refused_as_typed_in_runs_words_unparsed(lines, parsed):
    found = plan.problems(lines, None)
    assert found == [_runs_refusal(lines)]
    assert parsed == []


def test_a_plan_within_the_limits_is_still_checked_line_by_line(parsed):
    found = plan.problems(["float32[3]", "float32[3"], None)
    assert len(found) == 1 and found[0].startswith("Call 2 ")
    assert parsed == ["float32[3]", "float32[3"]


def test_a_sweep_on_a_plan_over_the_limits_does_not_parse_its_last_line(parsed):
    assert plan.sweep_error("n=[1, 2]", [LITERAL], F_OF_ANY, "f") == ""
    assert parsed == []
    assert plan.sweep_error("n=[1, 2]", [], F_OF_ANY, "f")  # below the limits, said as before
