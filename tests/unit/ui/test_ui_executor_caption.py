"""The results' environment line names where a job ran: node, pool actor, warm or cold."""

from __future__ import annotations

import pytest

from playground.reports.safe_text import unescape_markdown

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


def page(warm) -> None:
    from playground.contract.job import ExecutorInfo, Report, SandboxInfo
    from playground.ui.results import environment_line

    executor = (
        ExecutorInfo("ray", "pod-7 (10.0.0.7, node 1a2b3c4d)", actor="0123456789abcdef", warm=warm)
        if warm is not None
        else ExecutorInfo("local", "vm")
    )
    environment_line(
        Report("2.21.0", "CPU", "ok", None, "", [], [], executor=executor, sandbox=SandboxInfo("bubblewrap")),
        1,
    )


@pytest.mark.parametrize(
    "warm, shown",
    [
        (True, "· node pod-7 (10.0.0.7, node 1a2b3c4d) · actor 01234567 · warm ·"),
        (False, "· node pod-7 (10.0.0.7, node 1a2b3c4d) · actor 01234567 · cold ·"),
        (None, "· node vm · 0.00 s"),  # a local report from before the field
    ],
)
def test_the_environment_line_names_node_actor_and_warmth(warm, shown):
    app = AppTest.from_function(page, args=(warm,), default_timeout=30).run()
    (caption,) = app.caption
    assert shown in unescape_markdown(caption.value), caption.value  # the report's text, escaped
