"""The CLI as a user runs it: `python -m playground ...` in a subprocess, and a script to run."""

from __future__ import annotations

import subprocess
import sys

import pytest
from repo_paths import ROOT

PROCESS = (
    "import tensorflow as tf\n\n@tf.function\ndef process(x):\n"
    "    print('Tracing! x.shape =', x.shape)\n    return x * 2\n"
)


def cli(*args, stdin=None, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "playground", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def process_py(tmp_path):
    path = tmp_path / "process.py"
    path.write_text(PROCESS)
    return str(path)
