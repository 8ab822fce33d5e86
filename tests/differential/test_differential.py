"""Differential suite: on snippets from TensorFlow's own docs and tests (snippets/, each with its
origin and licence), the playground's script mode tells the same story as `python file.py`:
the same outcome, the same printed lines in order, the same tracing count per function.

Every snippet runs once each way in a module-scoped fixture, plain runs and sandboxed jobs side
by side (the pool runs two jobs at once); each snippet is then its own test case. A few also
go through the CLI, the way the issue's reports were made.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from harness import Story, run_cli, run_plain, run_pool, snippets
from playground.contract.config import Settings
from playground.sandbox import WorkerPool

# Differences inherent to running in the sandbox: snippet file -> why. The README lists them.
INHERENT: dict[str, str] = {}
PATHS = snippets()
# The CLI's cold worker too: 77 configures the runtime, which no worker may have touched.
THROUGH_CLI = [p for p in PATHS if p.name.startswith(("01_", "28_", "77_"))]


@pytest.fixture(scope="module")
def stories() -> dict[str, tuple[Story, Story]]:
    with WorkerPool(Settings(pool_size=2, timeout_s=100.0, cpu_s=200)) as pool:
        assert pool.wait_ready(), "the sandbox pool did not warm up"
        with ThreadPoolExecutor(max_workers=4) as threads:
            plain = threads.map(run_plain, PATHS)
            played = threads.map(lambda p: run_pool(pool, p), PATHS)
            return {p.name: pair for p, pair in zip(PATHS, zip(plain, played))}


def test_there_are_enough_third_party_snippets():
    assert len(PATHS) >= 40
    for path in PATHS:
        head = path.read_text().splitlines()[:3]
        assert head[0].startswith("# origin: tensorflow/"), path.name
        assert head[1].startswith("# licence: Apache-2.0"), path.name


def _same_story(plain: Story, played: Story, name: str) -> None:
    context = f"\n--- python {name}:\n{plain.raw[-3000:]}\n--- playground:\n{played.raw[-3000:]}"
    assert played.outcome == plain.outcome, context
    assert played.lines == plain.lines, context
    assert played.counts == plain.counts, context


@pytest.mark.parametrize("name", [p.name for p in PATHS])
def test_playground_tells_plain_pythons_story(stories, name):
    if name in INHERENT:
        pytest.skip(INHERENT[name])
    _same_story(*stories[name], name)


@pytest.mark.parametrize("path", THROUGH_CLI, ids=lambda p: p.name)
def test_cli_tells_the_same_story(stories, path):
    _same_story(stories[path.name][0], run_cli(path), path.name)
