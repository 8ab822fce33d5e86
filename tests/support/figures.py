"""Measured figures a test reports (image size, build and start times), printed after the run."""

from __future__ import annotations

import pytest

KEY = pytest.StashKey[list]()


def report(config: pytest.Config, line: str) -> None:
    config.stash.setdefault(KEY, []).append(line)


def lines(config: pytest.Config) -> list[str]:
    return config.stash.get(KEY, [])
