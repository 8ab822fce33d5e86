"""Presenter mode in a real browser (Debian's Chromium, Playwright) on a real `streamlit run` and
the real sandbox pool: the keys a presenter clicker sends step through the gallery in the
article's order, and each step shows that example's live result and the article's claim."""

from __future__ import annotations

import re

import pytest
from browser_support import (
    EDITOR,
    IDLE,
    RUN_TIMEOUT_MS,
    SHOTS,
    USES_CHROMIUM,
    chromium_page,
    server,  # noqa: F401 - fixtures
    traces_value,
    wait_for_js,
)

from playground import gallery
from playground.gallery import article
from playground.ui import keys

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=20_000)  # the shared 2-core machine draws slowly under load

START = "autograph-control-flow"  # its next three mix traces, errors and contradicted claims
HEADER = ".st-key-presenter_header"


@pytest.fixture
def page(server):
    with chromium_page(1400, 1600) as page:
        yield page


def wait_for_run(page, number: int) -> None:
    """The result captioned "Run <number>" is drawn and the script has finished. (browser_support's
    wait_idle waits for the editor, which presenter mode keeps in a collapsed panel.)"""
    expect(page.get_by_text(re.compile(rf"^Run {number} · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)


def keys_ready(page) -> None:
    """presenter_keys.js listens, and the buttons it clicks are drawn: both may come after the
    page is idle (a loaded machine shows a skeleton in a button's place for seconds)."""
    wait_for_js(page, "window.__playgroundPresenterKeys === true", RUN_TIMEOUT_MS)
    page.wait_for_selector(f".st-key-{keys.PRESENT_NEXT} button", timeout=RUN_TIMEOUT_MS)


def expect_shows(page, slug: str) -> None:
    """The header and the metrics show this example's claim and its live result, as the
    gallery expects of this TF version."""
    example = gallery.BY_SLUG[slug]
    header = page.locator(HEADER)
    expect(header).to_contain_text(example.title)
    expect(header).to_contain_text(example.article_claim)
    expect(header).to_contain_text(f"§{article.SECTION_OF[slug].number}")
    wrong = slug in article.ARTICLE_CONTRADICTED
    expect(header).to_contain_text("the claim does not hold" if wrong else "the claim holds")
    if example.expect.tracing_count is not None:
        assert traces_value(page) == str(example.expect.tracing_count), slug
    if example.expect.error_type:
        expect(header).to_contain_text(f"error: {example.expect.error_type}")
    assert f"example={slug}" in page.url and "present=1" in page.url


def test_clicker_keys_step_through_three_examples_in_the_articles_order(page, server) -> None:
    page.goto(f"{server}/?example={START}&present=1")
    expect(page.locator(HEADER)).to_contain_text(gallery.BY_SLUG[START].article_claim, timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)
    slug = START
    for number, key in enumerate(["ArrowRight", "PageDown", "ArrowRight"], 1):
        keys_ready(page)
        page.keyboard.press(key)
        slug = article.neighbour(slug, 1)
        wait_for_run(page, number)
        expect_shows(page, slug)
    page.screenshot(path=str(SHOTS / "presenter.png"), full_page=True)

    keys_ready(page)
    page.keyboard.press("PageUp")
    slug = article.neighbour(slug, -1)
    wait_for_run(page, 4)
    expect_shows(page, slug)


def test_keys_typed_into_a_field_stay_there(page, server) -> None:
    page.goto(f"{server}/?example={START}&present=1")
    page.wait_for_selector(f"{HEADER}", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)
    keys_ready(page)  # else a field's keys would stay there trivially
    # The inputs panel opens on a click and holds the working code editor.
    page.get_by_text("Inputs: the code editor", exact=False).click()
    editor = page.locator(EDITOR)
    expect(editor.locator(".ace_content")).to_contain_text("def autograph_demo")
    calls = page.locator(f".st-key-{keys.CALLS} textarea")
    calls.click()
    for key in ("ArrowRight", "PageDown"):
        handled = calls.evaluate(
            "(el, key) => { const e = new KeyboardEvent('keydown', {key, bubbles: true, "
            "cancelable: true}); el.dispatchEvent(e); return e.defaultPrevented; }",
            key,
        )
        assert handled is False, key
    # Off the field, the same event is the presenter's: it steps (and runs) the next example.
    page.locator(HEADER).click()
    page.keyboard.press("ArrowRight")
    wait_for_run(page, 1)
    expect_shows(page, article.neighbour(START, 1))


NAV = (keys.PRESENT_PREVIOUS, keys.PRESENT_NEXT, keys.RUN)


def controls(page) -> list[tuple[int, int]]:
    """Where Previous, Next and Run are on the screen: (left, top) of each button."""
    boxes = [page.locator(f".st-key-{key} button").first.bounding_box() for key in NAV]
    assert all(boxes), boxes
    return [(round(box["x"]), round(box["y"])) for box in boxes]


def test_the_controls_stay_put_from_step_to_step_and_cover_nothing(server) -> None:
    """A presenter clicks Next again and again: it must stay under the mouse. The header above
    it took 150 to 230 px example by example, the run's status grew the row, and the step to
    tf-print opened its Console tab, which Streamlit scrolled into view (190 px at 1280x720);
    and Next's tooltip covered the claim."""
    assert gallery.BY_SLUG[article.neighbour(START, 1)].tab  # the first step opens a tab
    with chromium_page(1280, 720) as page:
        page.goto(f"{server}/?example={START}&present=1")
        expect(page.locator(HEADER)).to_contain_text(
            gallery.BY_SLUG[START].article_claim, timeout=RUN_TIMEOUT_MS
        )
        page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)
        keys_ready(page)
        where = controls(page)
        assert len({top for _, top in where}) == 1, where  # one row, the buttons' tops level
        # No tooltip on Previous / Next: the keys are said in the caption beside them.
        for key in NAV[:2]:
            expect(page.locator(f".st-key-{key} [data-testid=stTooltipHoverTarget]")).to_have_count(0)
        expect(page.get_by_text("PageUp / PageDown", exact=False)).to_be_visible()
        slug = START
        for number in (1, 2):
            page.locator(f".st-key-{keys.PRESENT_NEXT} button").first.click()
            slug = article.neighbour(slug, 1)
            wait_for_run(page, number)
            expect(page.locator(HEADER)).to_contain_text(gallery.BY_SLUG[slug].title)
            page.wait_for_timeout(1000)  # a tab's scroll into view is smooth: let one finish
            assert controls(page) == where, slug
            page.screenshot(path=str(SHOTS / f"presenter-step-{number}-1280x720.png"))
