"""What a notebook shows for a report (playground/jupyter/view.py), from a recorded Report: the
HTML escapes everything the user's code produced, the text fallback is the CLI's own text, the
data rides along under its own type, and the run's language holds whatever the notebook's is.
No kernel, no TensorFlow: tests/integration/test_jupyter_magic.py runs the magic in a real one."""

from __future__ import annotations

import dataclasses
import json
import re

import repo_paths

from playground.cli.render_text import render
from playground.contract import i18n
from playground.contract.job import Report, job_from_json
from playground.jupyter.view import REPORT_MIME, ReportView, table

DATA = repo_paths.DATA
REPORT = Report.from_json((DATA / "retracing.json").read_text())
SOURCE = job_from_json((DATA / "retracing.job.json").read_text()).source


def test_the_html_escapes_what_the_users_code_printed() -> None:
    hostile = "<script>alert('printed')</script>"
    call = dataclasses.replace(REPORT.functions[0].calls[0], args=hostile, output=hostile)
    function = dataclasses.replace(REPORT.functions[0], calls=[call], name="<b>f</b>")
    report = dataclasses.replace(REPORT, stdout=hostile, functions=[function])
    page = ReportView(report, f"# {hostile}\n" + SOURCE)._repr_html_()
    assert "<script>alert" not in page and "<b>f</b>" not in page
    assert page.count("&lt;script&gt;alert(&#x27;printed&#x27;)&lt;/script&gt;") >= 3


def test_each_call_is_a_row_with_its_reason() -> None:
    page = ReportView(REPORT, SOURCE)._repr_html_()
    calls = re.search(r'<table class="tfp-calls">.*?</table>', page).group(0)
    rows = re.findall(r"<tr>(.*?)</tr>", calls)
    assert len(rows) == 1 + len(REPORT.functions[0].calls)
    assert "first call" in rows[1] and "reused graph" in rows[2]


def test_the_text_fallback_is_the_clis_text() -> None:
    assert repr(ReportView(REPORT, SOURCE)) == render(REPORT)


def test_the_bundle_carries_html_text_and_the_reports_json() -> None:
    bundle = ReportView(REPORT, SOURCE)._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain", REPORT_MIME}
    assert Report.from_json(json.dumps(bundle[REPORT_MIME])) == REPORT


def test_the_view_keeps_the_runs_language() -> None:
    with i18n.using("en"):
        chinese = ReportView(REPORT, SOURCE, language="zh")._repr_html_()
    with i18n.using("zh"):
        english = ReportView(REPORT, SOURCE, language="en")._repr_html_()
    assert "首次调用" in chinese and "first call" not in chinese
    assert "first call" in english and "首次调用" not in english


def test_a_table_of_no_rows_is_nothing() -> None:
    assert table([]) == ""
