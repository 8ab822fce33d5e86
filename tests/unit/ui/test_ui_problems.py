"""The Problems tab's pure parts (ui/results/problems.py): a saved trace-mode report's cited
lines, marked where its problems are and escaped, and whether the code asks for jit_compile."""

from __future__ import annotations

import repo_paths

from playground.contract import source_info
from playground.contract.job import Report, SourceLine
from playground.ui.results import problems

SAVED = Report.from_json((repo_paths.DATA / "trace_program.json").read_text())


def test_a_trace_reports_warning_is_marked_at_its_site_in_its_cited_lines() -> None:
    assert problems.site_of(SAVED, "step", 12) == "train.py:12"
    assert problems.site_of(SAVED, "step", 99) == ""
    marks = problems.cited_marks(SAVED)
    assert marks == {("train.py", 12): "retracing-cause"}
    assert SAVED.trace is not None
    html = problems.cited_source(SAVED.trace.lines, marks)
    rows = html.split("</div>")
    assert [r for r in rows if 'class="problem-line"' in r][0].count("step(tf.ones([2]), lr)") == 1
    numbers = [
        int(r.split('color:#999">')[1].split("<")[0]) for r in rows if 'color:#999">' in r and "⋮" not in r
    ]
    assert numbers == [4, 12, 13]  # in line order, whatever order the report cites them in
    assert "⋮" in html  # 4 and 12 are not neighbours


def test_cited_lines_are_text_whatever_the_file_says() -> None:
    hostile = [SourceLine('<img src="http://x/leak.png">', 3, "<script>alert(1)</script> &amp;")]
    html = problems.cited_source(hostile, {('<img src="http://x/leak.png">', 3): "<b>x</b>"})
    assert "<img" not in html and "<script" not in html and "<b>x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp;" in html


def test_the_code_itself_asks_for_jit_compile_only_as_written() -> None:
    source = """import tensorflow as tf

@tf.function(jit_compile=True)
def a(x):
    return x

@tf.function(jit_compile=False)
def b(x):
    return x

@tf.function
def c(x):
    return x
"""
    assert [(i.name, i.jit_compile) for i in source_info.functions(source)] == [
        ("a", True),
        ("b", False),
        ("c", False),
    ]
