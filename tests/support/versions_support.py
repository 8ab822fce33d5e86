"""The extra TensorFlow version the version tests run on (CI installs one: .ci/run)."""

from __future__ import annotations

import os

import pytest

from playground.contract import versions
from playground.contract.config import Settings

CI_VERSION = os.environ.get("PLAYGROUND_CI_TF_VERSION", "")


@pytest.fixture(scope="module")
def extra() -> versions.TFVersion:
    """The extra version under test: CI's, else the oldest installed one."""
    installed = versions.installed(Settings())
    if CI_VERSION:
        found = [v for v in installed if v.version == CI_VERSION and not v.default]
        assert found, (
            f"CI installs TensorFlow {CI_VERSION} (scripts/install.sh --tf), but "
            f"the installed versions are: {versions.names(installed)}"
        )
        return found[0]
    if len(installed) < 2:
        pytest.skip("no extra TensorFlow version installed: scripts/install.sh --tf 2.15.1")
    return installed[1]
