"""Trace mode's HTML report in a real Chromium: it opens from a file with no request leaving it
(fonts, scripts, images: none), and reads in both languages. Made from a recorded report of a
Keras program (tests/data/keras_fit.json), no TensorFlow needed here. And the page opens a saved
report (.json) in its usual panes, read-only, and refuses a file that is not one."""

from __future__ import annotations

import pytest
import repo_paths
from browser_support import (  # noqa: F401 - fixtures
    SHOTS,
    USES_CHROMIUM,
    chromium_page,
    open_panel,
    server,
    wait_idle,
)

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


def test_the_page_opens_a_saved_report_read_only_and_refuses_what_is_not_one(server, tmp_path) -> None:
    from playwright.sync_api import expect

    broken = tmp_path / "notes.json"
    broken.write_text('{"tensorflow_version": 2}')
    with chromium_page(1400, 1000) as page:
        page.goto(server)
        wait_idle(page)
        open_panel(page, "open_panel")
        uploader = page.locator(".st-key-open_file input[type=file]")
        uploader.set_input_files(str(broken))
        expect(page.get_by_text("Could not open notes.json: not a saved report", exact=False)).to_be_visible()
        uploader.set_input_files(str(repo_paths.DATA / "keras_fit.json"))
        expect(page.get_by_text("Saved report keras_fit.json, read-only", exact=False)).to_be_visible()
        wait_idle(page)
        page.get_by_role("tab", name="Traces").click()
        wait_idle(page)
        expect(page.get_by_text("keras: TensorFlowTrainer.make_train_function", exact=False)).to_be_visible()
        expect(page.get_by_text("Out of date", exact=False)).to_have_count(0)
