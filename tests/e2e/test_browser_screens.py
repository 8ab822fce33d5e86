"""The screens a room and a phone see (issue 42), in Debian's Chromium: the first screen at
1400x900 with a result before any Run and every line of the code views readable, presenter
mode at 1280x720 with the code, the call plan and the result on one screen, in both languages,
every code view wrapped or visibly scrolled, the claims table's verdicts in view, and the
screenshots in SHOTS, looked at. (Every time axis with its unit on each tick: the
timing test in test_browser.py.)"""

from __future__ import annotations

import os
import re

import pytest
import repo_paths
from browser_support import (  # noqa: F401 - fixture
    IDLE,
    SHOTS,
    USES_CHROMIUM,
    chromium_page,
    open_panel,
    server,
    wait_for_js,
    wait_idle,
)

from playground import gallery
from playground.contract import i18n

pytestmark = USES_CHROMIUM
# PLAYGROUND_UPDATE_SCREENSHOT=1 refreshes the docs' pictures (README, docs/gallery.md) from these.
UPDATE_DOCS = bool(os.environ.get("PLAYGROUND_UPDATE_SCREENSHOT"))
DOCS = repo_paths.ROOT / "docs"
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=20_000)

LANGUAGES = {"en": "en", "zh": "zh_CN"}
RECORDED = (
    "Recorded result of this example (TensorFlow {version} on {device}): press **Run** for a live run here."
)


def recorded_caption(language: str) -> str:
    """The first words of the caption a recorded result carries, in the page's language."""
    with i18n.using(LANGUAGES[language]):
        return re.split(r"[（(]", i18n._(RECORDED))[0].strip()


def widest(count: int) -> list[str]:
    """The gallery's examples whose code has the longest lines: where a code view would clip."""
    ranked = sorted(gallery.EXAMPLES, key=lambda e: -max(map(len, e.source.splitlines())))
    return [e.slug for e in ranked][:count]


def widest_converted(count: int) -> list[str]:
    """The examples whose recorded converted code has the longest lines."""
    from playground.gallery import recorded

    def longest(slug: str) -> int:
        report = recorded.recorded(slug, "en")
        code = [f.converted_code for f in report.functions if f.converted_code] if report else []
        return max((len(line) for text in code for line in text.splitlines()), default=0)

    return sorted((e.slug for e in gallery.EXAMPLES), key=lambda s: -longest(s))[:count]


def clipped_lines(page) -> list[str]:  # type: ignore[no-untyped-def]
    """Every code view in the page whose content is wider than its box (a line cut at the edge):
    the editor (Ace's own measure) and both panes of the converted-code view."""
    return page.evaluate(
        """() => {
        const out = [];
        for (const el of document.querySelectorAll('.ace_editor')) {
          const r = el.env && el.env.editor && el.env.editor.renderer;
          if (r && r.scrollBarH && r.scrollBarH.isVisible) out.push('editor');
        }
        for (const pane of document.querySelectorAll('.lm-pane')) {
          if (pane.scrollWidth > pane.clientWidth + 1) out.push(pane.className);
          for (const row of pane.querySelectorAll('.lm-row'))
            if (row.scrollWidth > row.clientWidth + 1) { out.push(row.textContent.slice(0, 60)); break; }
        }
        return out;
      }"""
    )


def open_tab(page, name: str, language: str) -> None:  # type: ignore[no-untyped-def]
    from playground.ui.results import tab_label

    with i18n.using(LANGUAGES[language]):
        label = tab_label(name)
    page.get_by_role("tab", name=label).click()
    wait_idle(page)


def in_view(page, locator, height: int) -> bool:  # type: ignore[no-untyped-def]
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= height


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_first_screen_at_1400x900_has_a_result_and_every_code_line_whole(server, language) -> None:
    with chromium_page(1400, 900) as page:
        page.goto(f"{server}/?lang={language}")
        caption = page.get_by_text(recorded_caption(language))
        expect(caption.first).to_be_visible()  # a result, before any Run
        wait_idle(page)
        assert in_view(page, page.locator(".st-key-run button"), 900)
        page.screenshot(path=str(SHOTS / f"first-screen-1400x900-{language}.png"))
        if UPDATE_DOCS and language == "en":
            page.screenshot(path=str(DOCS / "screenshot.png"))
        for slug in dict.fromkeys(widest(3) + widest_converted(3)):
            page.goto(f"{server}/?lang={language}&example={slug}")
            expect(caption.first).to_be_visible()
            wait_idle(page)
            open_tab(page, "Converted code", language)
            expect(page.locator(".lm-pane").first).to_be_visible()
            assert clipped_lines(page) == [], slug
        # The last of them (its longest converted line), as the page draws it below the inputs.
        page.locator(".lm").first.screenshot(path=str(SHOTS / f"converted-1400x900-{language}.png"))


@pytest.mark.parametrize("language", ["en", "zh"])
def test_presenter_at_1280x720_has_the_code_the_plan_and_the_result_on_one_screen(server, language) -> None:
    with chromium_page(1280, 720) as page:
        page.goto(f"{server}/?lang={language}&present=1&example=python-scalar-arg")
        expect(page.get_by_text(recorded_caption(language)).first).to_be_visible()
        page.wait_for_selector(IDLE)  # not wait_idle: the editor is folded away on stage
        stage = page.locator(".st-key-presenter_stage")
        # By key, not by position: a results tab's code block (Traces' signatures) was once
        # second in the stage when the suite ran under load (CI, this stop).
        code = stage.locator("[data-testid='stCode']").first
        plan = stage.locator(".st-key-presenter_plan [data-testid='stCode']")
        expect(plan).to_have_text("\n".join(gallery.BY_SLUG["python-scalar-arg"].calls))
        result = page.locator("[data-testid='stMetric'], [data-testid='stPlotlyChart']").first
        for what, locator in (("code", code), ("call plan", plan), ("result", result)):
            assert in_view(page, locator, 720), what
        nav = [
            page.locator(f".st-key-{key} button").first.bounding_box()
            for key in ("present_previous", "present_next", "run")
        ]
        assert len({round(box["y"] + box["height"] / 2) for box in nav if box}) == 1, nav  # one row
        page.screenshot(path=str(SHOTS / f"presenter-1280x720-{language}.png"))
        if UPDATE_DOCS and language == "en":
            page.screenshot(path=str(DOCS / "presenter.png"))


def shoot(locator, name: str) -> None:  # type: ignore[no-untyped-def]
    """The screen's part of `locator`, scrolled to the top: an element's own screenshot of a
    tall part of a Streamlit page draws blank below the screen."""
    locator.evaluate("e => e.scrollIntoView({block: 'start'})")
    locator.page.wait_for_timeout(300)
    box = locator.bounding_box()
    height = min(box["height"], locator.page.viewport_size["height"] - box["y"])
    clip = {"x": box["x"], "y": box["y"], "width": box["width"], "height": height}
    locator.page.screenshot(path=str(SHOTS / name), clip=clip)


def test_the_pass_views_of_the_passes_walkthrough(server) -> None:
    """docs/passes.md's pictures: dead-matmuls' Grappler passes, op by op, and xla's passes of
    XLA with what one changed; both from the examples' recordings, before any Run."""
    with chromium_page(1400, 900) as page:
        page.goto(f"{server}/?example=dead-matmuls")
        wait_idle(page)
        open_tab(page, "Graph", "en")
        grappler = page.locator("[data-testid=stExpander]").filter(has_text="Grappler's passes, one by one")
        grappler.locator("summary").click()
        expect(grappler.get_by_text("model_pruning 103 → 4", exact=False)).to_be_visible()
        shoot(grappler, "passes-grappler-1400x900.png")
        page.goto(f"{server}/?example=xla")
        wait_idle(page)
        open_tab(page, "Graph", "en")
        passes = page.locator("[data-testid=stExpander]").filter(has_text="XLA's passes, one by one")
        passes.locator("summary").first.click()
        expect(passes.get_by_text("XLA passes changed the module", exact=False)).to_be_visible()
        search = passes.get_by_label("Find in every pass's HLO")
        search.fill("fusion")
        search.press("Enter")
        wait_idle(page)
        expect(passes.get_by_text("snapshots: #", exact=False)).to_be_visible()
        shoot(passes, "passes-xla-1400x900.png")
    if UPDATE_DOCS:
        for name in ("grappler", "xla"):
            (DOCS / f"passes-{name}.png").write_bytes((SHOTS / f"passes-{name}-1400x900.png").read_bytes())


def cut_code(page) -> list[str]:  # type: ignore[no-untyped-def]
    """Every code block (st.code) wider than its box whose scroll bar is not drawn: a line cut
    at the edge with nothing to say so (Streamlit's bar is transparent until hovered)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=stCode] pre')]
          .filter(pre => {
            const style = getComputedStyle(pre);
            return pre.scrollWidth > pre.clientWidth + 1 && (style.overflowX === 'hidden' ||
              /^(transparent|rgba\\(0, 0, 0, 0\\))/.test(style.scrollbarColor));
          })
          .map(pre => pre.textContent.slice(0, 60))"""
    )


def wrapped(locator) -> bool:  # type: ignore[no-untyped-def]
    """The code block's lines all fit its box: the long ones go on below, none scrolls."""
    return bool(locator.locator("pre").evaluate("pre => pre.scrollWidth <= pre.clientWidth + 1"))


def test_every_code_view_wraps_or_scrolls_visibly(server) -> None:
    """The presenter's code, the converted code's diff and XLA's HLO wrap their long lines; any
    other code block that scrolls shows its scroll bar."""
    with chromium_page(1400, 900) as page:
        slug = widest(1)[0]
        page.goto(f"{server}/?example={slug}&present=1")
        stage_code = page.locator(".st-key-presenter_stage [data-testid='stCode']").first
        expect(stage_code).to_be_visible()
        page.wait_for_selector(IDLE)
        assert wrapped(stage_code), slug
        assert cut_code(page) == [], slug
        stage_code.screenshot(path=str(SHOTS / "presenter-code-wrapped-1400x900.png"))

        slug = widest_converted(1)[0]
        page.goto(f"{server}/?example={slug}")
        wait_idle(page)
        open_tab(page, "Converted code", "en")
        changed = page.get_by_test_id("stExpander").filter(has_text="What changed")
        changed.locator("summary").click()
        diff = changed.get_by_test_id("stCode")
        expect(diff).to_be_visible()
        assert wrapped(diff), slug
        assert cut_code(page) == [], slug
        shoot(diff, "converted-diff-wrapped-1400x900.png")

        page.goto(f"{server}/?example=xla")
        wait_idle(page)
        open_tab(page, "Graph", "en")
        hlo = page.get_by_test_id("stExpander").filter(has_text="XLA HLO (jit_compile=True)")
        hlo.locator("summary").first.click()
        text = hlo.get_by_test_id("stCode").first
        expect(text).to_be_visible()
        assert text.evaluate("e => e.textContent.split('\\n').some(line => line.length > 100)")  # long
        assert wrapped(text)
        assert cut_code(page) == []
        text.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(SHOTS / "hlo-wrapped-1400x900.png"))


def test_the_claims_tables_verdicts_are_in_view_at_1400x900(server) -> None:
    """The claims x versions panel, at the bottom of the inputs (about 490 px wide): every
    version's verdict in view without scrolling the table; the last one was cut off."""
    from playground.ui import claims_table

    table = claims_table.recorded()
    assert table is not None and len(table.versions) >= 3
    with chromium_page(1400, 900) as page:
        page.goto(server)
        wait_idle(page)
        open_panel(page, "claims_panel")
        panel = page.locator(".st-key-claims_panel")
        frame = panel.get_by_test_id("stDataFrame")
        frame.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(SHOTS / "claims-table-1400x900.png"))
        # The grid draws on a canvas. Its accessible table names the columns near the view
        # (one past its edge too), by position; a click in the first row, at the table's right
        # edge, focuses the cell of the column that is there.
        headers = panel.locator("[role=columnheader]")
        expect(headers.filter(has_text="check")).to_have_count(1)
        names = {int(h.get_attribute("aria-colindex")): h.text_content() for h in headers.all()}
        verdicts = [index for index, name in names.items() if name.startswith("TF ")]
        assert len(verdicts) == len(table.versions), names
        box = frame.bounding_box()
        page.mouse.click(box["x"] + box["width"] - 8, box["y"] + 52)  # the header is 35 px high
        focused = "document.activeElement && document.activeElement.getAttribute('aria-colindex')"
        wait_for_js(page, f"!!({focused})", 10_000)
        at_edge = int(page.evaluate(f"() => {focused}"))
        assert at_edge > max(verdicts), (names, at_edge)
