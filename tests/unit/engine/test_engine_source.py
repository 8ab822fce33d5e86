"""engine/source.py: the user's file is compiled as plain Python compiles it, with none of the
engine's own `from __future__` flags (postponed annotations made every annotation a string)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from playground.contract.job import Job
from playground.engine.pipeline import analyze

ANNOTATED = """import dataclasses
import typing

def f(x: int, y: "float" = 1.0) -> typing.List[int]:
    return [x]

@dataclasses.dataclass
class Point:
    x: int

print(f.__annotations__)
print(Point.__annotations__, [field.type for field in dataclasses.fields(Point)])
"""


def plain_python(source: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, check=True, timeout=60
    ).stdout


@pytest.mark.parametrize("function", [None, "f"], ids=["script mode", "entry mode"])
def test_annotations_are_what_plain_python_makes_of_them(function):
    report = analyze(Job(source=ANNOTATED, function=function, calls=("1",) if function else ()))
    assert report.status == "ok", report.error
    assert report.stdout == plain_python(ANNOTATED)
    assert "<class 'int'>" in report.stdout  # objects, not the strings 'int'


# Errors whose last line Python 3.10+ completes with a suggestion: plain Python's traceback is
# the reference, character for character, for a file run as `python user.py`.
SUGGESTED = {
    "attribute": """class Metric:
    def reset_state(self):
        pass

Metric().reset_states()
""",
    "name in a function": """def total(values):
    totl = sum(values)
    return total_

total([1, 2])
""",
    "chained": """def load():
    try:
        return {}.itmes()
    except AttributeError as e:
        raise RuntimeError("could not load") from e

load()
""",
}


@pytest.mark.parametrize("source", SUGGESTED.values(), ids=SUGGESTED.keys())
def test_a_traceback_is_the_one_plain_python_prints_suggestions_included(tmp_path, source):
    (tmp_path / "user.py").write_text(source)
    plain = subprocess.run(
        [sys.executable, "user.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    ).stderr.replace(f"{tmp_path}/", "")  # Python names __main__'s file by its full path
    assert "Did you mean" in plain  # the reference has the suggestion this test is about
    report = analyze(Job(source=source, function=None, filename="user.py"))
    assert report.error is not None
    assert report.error.traceback == plain
    hint = plain.strip().splitlines()[-1].split(". Did you mean", 1)
    if len(hint) == 2:  # the headline says it too
        assert report.error.message.endswith(". Did you mean" + hint[1])
