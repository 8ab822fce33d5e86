"""The notebook's view of a function-mode report whose module printed and called the entry before
the plan (playground/jupyter/view.py): the module's output once, under its own heading, the
plan's calls' output apart, and the counts that tell them apart. No kernel, no TensorFlow."""

from __future__ import annotations

import dataclasses

import repo_paths

from playground.contract.job import ModuleRun, Report, job_from_json
from playground.jupyter.view import ReportView

DATA = repo_paths.DATA
REPORT = Report.from_json((DATA / "retracing.json").read_text())
SOURCE = job_from_json((DATA / "retracing.job.json").read_text()).source
MODULE = ModuleRun(
    "f", "module says <hi>\n", calls=6, traces=4, retracing_warnings=["6 out of the last 6 calls"]
)


def test_the_modules_output_is_shown_once_apart_from_the_plans() -> None:
    calls = "".join(c.stdout for c in REPORT.functions[0].calls)
    assert calls.strip()  # the recording's calls printed: their block must stay
    report = dataclasses.replace(REPORT, module=MODULE, stdout=MODULE.stdout + calls)
    page = ReportView(report, SOURCE)._repr_html_()
    assert page.count("module says &lt;hi&gt;") == 1
    module = page.index("output of the module-level code (before the plan):")
    assert module < page.index("output of the plan&#x27;s calls:")
    assert "stdout of the whole run:" not in page
    assert "the module&#x27;s own code called f 6 time(s) (4 trace(s))" in page
    assert "TF warning (module-level code): 6 out of the last 6 calls" in page


def test_a_wrapped_entry_says_so_and_a_report_without_a_module_is_as_before() -> None:
    wrapped = dataclasses.replace(REPORT, module=ModuleRun("f", wrapped=True))
    assert (
        "f is a plain def: the playground wrapped it in tf.function"
        in ReportView(wrapped, SOURCE)._repr_html_()
    )
    page = ReportView(REPORT, SOURCE)._repr_html_()
    assert "module-level" not in page and "plain def" not in page
    assert "stdout of the whole run:" in page
