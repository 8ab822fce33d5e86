"""Why a run failed, said before the error as raised (reports/failure.py), by every front end:
the reasons read from recorded reports, the tracebacks without their runs of blank lines, and
the terminal's order."""

from __future__ import annotations

import dataclasses

import repo_paths

from playground.cli import render_text
from playground.contract.job import Report, Warning
from playground.jupyter import view
from playground.reports import failure, html_report

DATA = repo_paths.DATA


def recorded(name: str) -> Report:
    return Report.from_json((DATA / f"{name}.json").read_text())


def test_xlas_missing_kernel_explains_a_jit_compile_failure() -> None:
    report = recorded("numpy_jit")  # tf.numpy_function in @tf.function(jit_compile=True)
    (why,) = failure.explanations(report)
    assert (why.code, why.function, why.line) == ("xla-unsupported", "f", 7)
    assert why.text == "XLA has no kernel on XLA_CPU_JIT for 1 op(s) of this graph: PyFunc at line 7."
    assert "jit_compile" in why.fix
    assert failure.jit_compiled(report.functions[0])
    assert failure.no_hlo_reason(report.functions[0]) == why.text


def test_the_pitfall_that_names_the_cause_explains_the_error_and_is_not_said_twice() -> None:
    report = recorded("shape_none")  # len(x) of a None dimension, then tf.reshape fails
    (why,) = failure.explanations(report)
    assert (why.code, why.line) == ("python-control-flow-on-tensor-shape", 6)
    assert failure.explained_warnings(report) == {0}
    broken = recorded("broken")  # .numpy() in a tf.function
    assert [w.code for w in failure.explanations(broken)] == ["numpy-in-graph"]


def test_a_run_that_did_not_fail_or_a_pitfall_that_causes_no_error_explains_nothing() -> None:
    assert failure.explanations(recorded("retracing")) == []
    report = recorded("shape_none")
    unrelated = dataclasses.replace(report.warnings[0], code="python-scalar-arg")
    assert failure.explanations(dataclasses.replace(report, warnings=[unrelated])) == []
    elsewhere = Warning("numpy-in-graph", 3, "m", "f", function="another")
    assert failure.explanations(dataclasses.replace(report, warnings=[elsewhere])) == []
    assert not failure.jit_compiled(recorded("retracing").functions[0])


def test_runs_of_blank_lines_collapse_to_one() -> None:
    tf_said = 'Graph execution error:\n\nDetected at node Reshape:\n\n\n  \n\t\n\n  File "a.py", line 7\n\n\nfails\n\n'
    assert failure.collapse_blank_lines(tf_said) == (
        'Graph execution error:\n\nDetected at node Reshape:\n\n  File "a.py", line 7\n\nfails'
    )
    raised = recorded("shape_none").functions[0].calls[0].error
    assert "\n\n\n" in raised.message and "\n\n\n" not in failure.collapse_blank_lines(raised.message)


def test_the_terminal_the_html_report_and_the_notebook_say_why_before_the_error() -> None:
    report = recorded("numpy_jit")
    text = render_text.render(report)
    why = text.index("why it failed (line 7): XLA has no kernel")
    assert why < text.index("! InvalidArgumentError") and why < text.index("environment:")
    failed = dataclasses.replace(report, error=report.functions[0].calls[0].error)
    page = html_report.render(failed)
    assert page.index("XLA has no kernel") < page.index("<b>InvalidArgumentError</b>")
    notebook = view.report_html(failed, "")
    assert notebook.index("why it failed (line 7): XLA has no kernel") < notebook.index(
        "Detected unsupported"
    )
