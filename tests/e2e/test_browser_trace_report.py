"""Trace mode's HTML report in a real Chromium: it opens from a file with no request leaving it
(fonts, scripts, images: none), and reads in both languages. Made from a recorded report of a
Keras program (tests/data/keras_fit.json), no TensorFlow needed here."""

from __future__ import annotations

import pytest
import repo_paths
from browser_support import SHOTS, USES_CHROMIUM, chromium_page

from playground.contract import i18n
from playground.contract.job import Report
from playground.reports import html_report

pytestmark = USES_CHROMIUM
pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

REPORT = Report.from_json((repo_paths.DATA / "keras_fit.json").read_text())


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["What to fix", "keras: TensorFlowTrainer.make_train_function"]),
        ("zh_CN", ["要修复的问题", "每个函数的追踪次数"]),
    ],
)
def test_the_report_opens_offline_and_reads_in_its_language(tmp_path, language, words) -> None:
    with i18n.using(language):
        page_file = tmp_path / "report.html"
        page_file.write_text(html_report.render(REPORT), encoding="utf-8")
    with chromium_page(1200, 900) as page:
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        page.goto(page_file.as_uri())
        text = page.inner_text("body")
        assert asked == [page_file.as_uri()]  # the file itself, nothing else
        for word in words:
            assert word in text
        assert page.locator("svg rect").count() >= 3  # the chart, drawn inline
        page.screenshot(path=str(SHOTS / f"trace-report-{language}.png"), full_page=True)
