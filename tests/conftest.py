"""Shared fixtures: the repository root on sys.path, and an in-process engine runner."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def pytest_terminal_summary(terminalreporter, config) -> None:  # type: ignore[no-untyped-def]
    """Figures are printed even when the output of passing tests is captured (pytest -q)."""
    import figures

    if figures.lines(config):
        terminalreporter.section("measured")
        for line in figures.lines(config):
            terminalreporter.write_line(line)
