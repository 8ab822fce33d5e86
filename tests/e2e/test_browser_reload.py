"""The page keeps its word in a real browser (Chromium, a real `streamlit run` and sandbox): a
reload shows the same code and its result with no click, and Back and Forward move between the
states the address bar showed."""

from __future__ import annotations

import re
import time

import pytest
from browser_support import (  # noqa: F401 - fixtures
    RUN_TIMEOUT_MS,
    SHOTS,
    USES_CHROMIUM,
    editor_text,
    expect_editor_text,
    page,
    plan_box,
    run_and_wait,
    server,
    set_plan,
    traces_value,
    wait_idle,
)

from playground.contract.share_link import input_params, url

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect

DOUBLE = """import tensorflow as tf


@tf.function
def double(x):
    return x * 2
"""
# Two shapes: two traces, a number only a real run of this plan shows.
PLAN = "float32[3]\nfloat32[4]"


def pick_example(page, slug: str) -> None:  # type: ignore[no-untyped-def]
    page.locator(".st-key-example").get_by_role("combobox").click()
    page.keyboard.type(slug)
    page.get_by_role("option", name=re.compile(rf"\({re.escape(slug)}\)")).click()
    wait_idle(page)


def test_a_reload_shows_the_code_and_its_result_with_no_click(page, server) -> None:
    page.goto(url(server, input_params(source=DOUBLE, function="double", calls=PLAN, values={})))
    wait_idle(page)
    run_and_wait(page)
    assert traces_value(page) == "2"
    expect(page).to_have_url(re.compile(r"[?&]ran=1(&|$)"))
    reloaded = time.monotonic()
    page.reload()
    # A new session: its first result is run 1 again, made by the reload itself.
    expect(page.get_by_text(re.compile(r"^Run 1 · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    print(f"reload to result: {time.monotonic() - reloaded:.2f} s")
    wait_idle(page)
    assert traces_value(page) == "2"
    assert "return x * 2" in editor_text(page)
    page.screenshot(path=str(SHOTS / "reload-result.png"))


def test_an_edited_plan_is_not_run_on_reload(page, server) -> None:
    """The address says ran=1 only while the result on screen is of the inputs shown."""
    page.goto(url(server, input_params(source=DOUBLE, function="double", calls=PLAN, values={})))
    wait_idle(page)
    run_and_wait(page)
    set_plan(page, "float32[5]")
    expect(page).not_to_have_url(re.compile(r"[?&]ran=1(&|$)"))
    page.reload()
    wait_idle(page)
    expect(plan_box(page)).to_have_value("float32[5]")
    expect(page.get_by_text("Press Run to trace the function with the call plan.")).to_be_visible()


def test_back_and_forward_move_between_examples(page, server) -> None:
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    pick_example(page, "tf-print")
    expect(page).to_have_url(re.compile(r"example=tf-print"))
    expect_editor_text(page, "tf.print")
    page.go_back()
    went = time.monotonic()
    expect(page.locator(".st-key-example").get_by_role("combobox")).to_have_value(
        re.compile(r"\(retracing\)"), timeout=5_000
    )
    expect_editor_text(page, "def ")
    assert "tf.print" not in editor_text(page)
    print(f"Back to the previous example: {time.monotonic() - went:.2f} s")
    expect(page).to_have_url(re.compile(r"example=retracing"))
    wait_idle(page)
    page.go_forward()
    expect(page.locator(".st-key-example").get_by_role("combobox")).to_have_value(
        re.compile(r"\(tf-print\)"), timeout=5_000
    )
    expect_editor_text(page, "tf.print")


def test_copy_share_link_copies_it(server) -> None:
    from browser_support import launch

    with sync_api.sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(
                viewport={"width": 1400, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
            )
            page.goto(url(server, input_params(source=DOUBLE, function="double", calls=PLAN, values={})))
            wait_idle(page)
            page.get_by_role("button", name="Copy share link").click()
            expect(page.get_by_text("Copied to your clipboard.")).to_be_visible(timeout=5_000)
            copied = page.evaluate("navigator.clipboard.readText()")
            assert copied == page.locator(".st-key-share_link code").inner_text().strip()
            assert copied.startswith(server) and "code=" in copied and "ran=" not in copied
            page.goto(copied)  # the link reproduces the code
            wait_idle(page)
            assert "return x * 2" in editor_text(page)
        finally:
            browser.close()
