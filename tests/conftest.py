"""Shared set-up: the repository root on sys.path, the test tiers, and the measured figures."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# The test modules that start servers, browsers, containers, Ray clusters, other TF versions or
# many sandboxed jobs. `pytest -m "not slow"` (the fast tier, about a minute with -n 2) leaves them out;
# a new module is fast until it is listed here. CI runs every tier.
SLOW = {
    "test_app",
    "test_app_i18n",
    "test_browser",
    "test_browser_compare",
    "test_browser_fairness",
    "test_browser_i18n",
    "test_browser_presenter",
    "test_cli_compare",
    "test_container_run",
    "test_deploy_ray",
    "test_export",
    "test_front_door_origin",
    "test_front_door_server",
    "test_proxy",
    "test_ray",
    "test_ray_nodes",
    "test_sandbox",
    "test_sandbox_adversarial",
    "test_sandbox_priority",
    "test_ui_versions",
    "test_versions",
    "test_differential",
    "test_plain_python_state",
    "test_api",
    "test_jupyter_magic",
    "test_package",
    "test_sandbox_forged_messages",
    "test_sandbox_kernel",
    "test_api_hostile",
    "test_browser_hostile",
}


def pytest_configure(config) -> None:  # type: ignore[no-untyped-def]
    # pytest-xdist would start the modules with the most tests first; the order below is better.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    """The slow tier's marker; and for `pytest -n 2 --dist loadgroup` (the README's command),
    each module's tests in one xdist group, so they share its servers on one worker, unless a
    test names a group of its own (the differential batches), with the slow modules first, so
    that the two workers finish together."""
    for item in items:
        module = Path(str(item.fspath)).stem
        if module in SLOW:
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(module))
    items.sort(key=lambda item: Path(str(item.fspath)).stem not in SLOW)


def pytest_sessionfinish(session) -> None:  # type: ignore[no-untyped-def]
    """An xdist worker hands its figures to the controller, which prints them."""
    import figures

    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["figures"] = figures.lines(session.config)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    import figures

    for line in getattr(node, "workeroutput", {}).get("figures", []):
        figures.report(node.config, line)


def pytest_terminal_summary(terminalreporter, config) -> None:  # type: ignore[no-untyped-def]
    """Figures are printed even when the output of passing tests is captured (pytest -q)."""
    import figures

    if figures.lines(config):
        terminalreporter.section("measured")
        for line in figures.lines(config):
            terminalreporter.write_line(line)


# PYTEST_TIMELINE=FILE: each test's whole protocol (its fixtures' set-up and teardown included),
# with the xdist worker that ran it, one JSON line a test; bench/suite_timeline.py reads it.
if os.environ.get("PYTEST_TIMELINE"):
    import json
    import time

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):  # type: ignore[no-untyped-def]
        started = time.time()
        yield
        line = {
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "test": item.nodeid,
            "start": started,
            "end": time.time(),
        }
        with open(os.environ["PYTEST_TIMELINE"], "a") as f:
            f.write(json.dumps(line) + "\n")
