"""Run's admission in a real `streamlit run app.py`, over the page's own websocket (no browser):
a press from inside the results' fragment reruns only that fragment, and a press the server
refuses is refused in Run's callback, before any drawing: the answer is the refusal beside Run
and nothing else, the report under it is not sent again (issue 43)."""

from __future__ import annotations

import asyncio

import pytest
from browser_support import streamlit_server
from streamlit_wire import Session, new_element, trigger

ONE_RUN_A_MINUTE = {"PLAYGROUND_CLIENT_IP_HEADER": "X-Forwarded-For", "PLAYGROUND_RUNS_PER_MINUTE": "1"}


@pytest.fixture(scope="module")
def server():
    with streamlit_server(executor="ui_support:replay", env=ONE_RUN_A_MINUTE) as (url, _process):
        yield url


class Page:
    """What each page run sent: its elements' kinds and texts, and Run's id and fragment."""

    def __init__(self) -> None:
        self.elements: list[tuple[str, str]] = []
        self.run_id = self.run_fragment = ""

    def watch(self, message) -> None:  # type: ignore[no-untyped-def]
        drawn = new_element(message)
        if drawn is None:
            return
        kind, body, fragment = drawn
        if kind == "button" and body.id.endswith("-run"):
            self.run_id, self.run_fragment = body.id, fragment
        self.elements.append((kind, str(getattr(body, "body", "") or getattr(body, "label", ""))))

    def texts(self, kind: str) -> list[str]:
        return [text.replace("\\", "") for k, text in self.elements if k == kind]


def test_a_refused_press_answers_beside_run_and_sends_no_report_again(server) -> None:
    async def visit() -> tuple[Page, Page, Page, list[str]]:
        session = await Session.open(server, client_ip="203.0.113.43")
        async with session:
            opened, ran, refused = Page(), Page(), Page()
            session.watch = opened.watch
            await session.rerun("example=retracing")
            assert opened.run_fragment, "Run is drawn inside a fragment"
            statuses = []
            for page in (ran, refused):
                session.watch = page.watch
                run = await session.rerun(
                    widgets=[trigger(opened.run_id)],
                    fragment_id=opened.run_fragment,
                    timeout=120,
                    through_reruns=True,
                )
                statuses.append(run.status)
            return opened, ran, refused, statuses

    opened, ran, refused, statuses = asyncio.run(visit())
    assert statuses == ["FINISHED_FRAGMENT_RUN_SUCCESSFULLY"] * 2
    # The first press ran: its fragment drew the new report, not the whole page.
    assert any(t.startswith("Run 1 · TensorFlow") for t in ran.texts("markdown"))
    assert "plotly_chart" in {k for k, _t in ran.elements}
    assert not any("Paste a TensorFlow function" in t for t in ran.texts("markdown"))  # no page chrome
    # The second met the limit of one Run a minute: the refusal, said why and when, alone.
    (alert,) = refused.texts("alert")
    assert alert.startswith("Rate limit: at most 1 runs a minute per visitor.") and "try again in" in alert
    assert [k for k, _t in refused.elements] == ["alert"], refused.elements
