"""The page in AppTest, with recorded reports instead of a sandbox (ui_support.replay)."""

from __future__ import annotations

import pytest
import repo_paths
from streamlit.testing.v1 import AppTest

from playground.ui import keys


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:replay")
    monkeypatch.setenv("PLAYGROUND_EDITOR", "plain")  # AppTest cannot drive the code editor component
    monkeypatch.syspath_prepend(str(repo_paths.SUPPORT))
    at = AppTest.from_file(str(repo_paths.APP), default_timeout=60)
    at.session_state[keys.OPTIONS_PANEL] = True  # opened, as a user would to change a setting
    return at
