"""Shared set-up: the repository root on sys.path, the test tiers, and the measured figures."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# The test modules that start servers, browsers, containers, Ray clusters, other TF versions or
# many sandboxed jobs. `pytest -m "not slow"` (the fast tier, about 3 minutes) leaves them out;
# a new module is fast until it is listed here. CI runs every tier.
SLOW = {
    "test_app", "test_app_i18n", "test_browser", "test_browser_compare", "test_browser_fairness",
    "test_browser_i18n", "test_browser_presenter", "test_cli_compare", "test_container_run",
    "test_deploy_ray", "test_export", "test_front_door_origin", "test_front_door_server",
    "test_proxy", "test_ray", "test_ray_nodes", "test_sandbox", "test_sandbox_adversarial",
    "test_sandbox_priority", "test_ui_versions", "test_versions", "test_differential",
    "test_plain_python_state",
}


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    import pytest

    for item in items:
        if Path(str(item.fspath)).stem in SLOW:
            item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter, config) -> None:  # type: ignore[no-untyped-def]
    """Figures are printed even when the output of passing tests is captured (pytest -q)."""
    import figures

    if figures.lines(config):
        terminalreporter.section("measured")
        for line in figures.lines(config):
            terminalreporter.write_line(line)
