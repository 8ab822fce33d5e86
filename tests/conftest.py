"""Shared set-up: the repository root on sys.path, the test tiers, and the measured figures."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUPPORT = ROOT / "tests" / "support"  # the helpers, imported by name: `import browser_support`
for path in (SUPPORT, ROOT):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# The tier follows the folder:
#   tests/unit/<package>/   one module's behaviour, in this process: the fast tier,
#                           `pytest tests/unit` (or -m "not slow"), about a minute with -n 2
#   tests/integration/      sandboxed jobs, servers, Ray clusters, other TF versions, notebooks
#   tests/e2e/              a real browser, containers, the proxy
#   tests/support/          helpers and fixtures (no tests); tests/data: recorded jobs and reports
# Everything outside tests/unit is marked slow. CI runs every tier.
UNIT = ROOT / "tests" / "unit"


def is_slow(item: pytest.Item) -> bool:
    return UNIT not in Path(str(item.fspath)).parents


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
        if is_slow(item):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(Path(str(item.fspath)).stem))
    items.sort(key=lambda item: not is_slow(item))


@pytest.fixture(autouse=True)
def _host_network(request) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """A test marked `browser` keeps the container tests from changing the host's network
    interfaces while its Chromium loads pages (tests/support/host_network.py says why)."""
    if request.node.get_closest_marker("browser") is None:
        yield
        return
    import browser_support
    import host_network

    browser_support.FAILED_REQUESTS.clear()
    with host_network.browsing():
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    """A failed browser test's report lists the requests its pages saw fail."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and item.get_closest_marker("browser") is not None:
        import browser_support

        if browser_support.FAILED_REQUESTS:
            report.sections.append(("requests that failed", "\n".join(browser_support.FAILED_REQUESTS[-50:])))


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
