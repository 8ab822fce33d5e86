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
