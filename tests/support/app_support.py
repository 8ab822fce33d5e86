"""The page in AppTest, with recorded reports instead of a sandbox (ui_support.replay)."""

from __future__ import annotations

import pytest
import repo_paths
from streamlit.testing.v1 import AppTest

from playground.runs import shared
from playground.ui import keys


def app_test(
    monkeypatch: pytest.MonkeyPatch, executor: str = "ui_support:replay", timeout: float = 60
) -> AppTest:
    """The page, running its jobs on `executor` (a tests/support stand-in) behind a fair queue
    of its own: the page's client is the same in every AppTest, so tests in one process would
    otherwise share its per-minute limits (20 runs) and meet them."""
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", executor)
    monkeypatch.setattr(shared, "_executors", {})
    monkeypatch.setenv("PLAYGROUND_EDITOR", "plain")  # AppTest cannot drive the code editor component
    monkeypatch.syspath_prepend(str(repo_paths.SUPPORT))
    return AppTest.from_file(str(repo_paths.APP), default_timeout=timeout)


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    at = app_test(monkeypatch)
    at.session_state[keys.OPTIONS_PANEL] = True  # opened, as a user would to change a setting
    return at
