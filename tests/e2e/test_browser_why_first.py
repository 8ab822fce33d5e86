"""A run that fails for a reason the playground can name, in a real Chromium, a real `streamlit
run` and sandbox: tf.numpy_function inside @tf.function(jit_compile=True). The Problems tab
opens on why (XLA has no kernel for PyFunc, at its line), XLA's own error folded under it, and
the Graph tab never asks to turn on the jit_compile the code already turns on."""

from __future__ import annotations

import pytest
from browser_support import (  # noqa: F401 - fixtures
    SHOTS,
    USES_CHROMIUM,
    chromium_page,
    leave_editor,
    run_and_wait,
    server,
    set_plan,
    type_code,
    wait_idle,
)

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=20_000)

NUMPY_JIT = """import numpy as np
import tensorflow as tf


@tf.function(jit_compile=True)
def f(x):
    y = tf.numpy_function(np.sin, [x], tf.float32)
    return y * 2
"""


def open_tab(page, name: str):  # type: ignore[no-untyped-def]
    page.get_by_role("tab", name=name).click()
    wait_idle(page)
    return page.locator("[role=tabpanel]:visible")


def test_a_jit_compile_numpy_function_opens_on_why_it_failed(server) -> None:
    with chromium_page(1400, 1000) as page:
        page.goto(server)
        wait_idle(page)
        type_code(page, NUMPY_JIT)
        leave_editor(page)
        set_plan(page, "float32[3]")
        run_and_wait(page)

        problems = open_tab(page, "Problems")
        shown = problems.locator("[data-testid=stAlert], [data-testid=stExpander], [data-testid=stCode]")
        first = shown.first
        expect(first).to_contain_text("Why it failed (line 7)")
        expect(first).to_contain_text(
            "XLA has no kernel on XLA_CPU_JIT for 1 op(s) of this graph: PyFunc at line 7"
        )
        raised = problems.locator("[data-testid=stExpander]").filter(has_text="The error as raised")
        expect(raised).to_contain_text("InvalidArgumentError in call 1, line 7")
        expect(problems.get_by_text("Detected unsupported operations", exact=False)).to_be_hidden()  # folded
        why_box, raised_box = first.bounding_box(), raised.bounding_box()
        assert why_box and raised_box and why_box["y"] < raised_box["y"]
        page.get_by_role("tablist").evaluate("el => el.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(SHOTS / "why-first-problems-1400x1000.png"))

        graph = open_tab(page, "Graph")
        expect(
            graph.get_by_text("No XLA HLO: the compile with jit_compile=True failed", exact=False)
        ).to_be_visible()
        expect(graph.get_by_text("Turn on jit_compile", exact=False)).to_have_count(0)
