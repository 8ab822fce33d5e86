"""Differential suite: on snippets from TensorFlow's own docs and tests (snippets/, each with its
origin and licence), the playground's script mode tells the same story as `python file.py`:
the same outcome, the same printed lines in order, the same tracing count per function.

The snippets run in batches, each snippet once each way, plain runs and sandboxed jobs side by
side (the pool runs two jobs at once); each snippet is then its own test case. A batch runs when
its first test asks for it. Under pytest-xdist each batch is an `xdist_group`, so the batches
run on different workers (the suite's longest setup, split). A few snippets also go through the
CLI, the way the issue's reports were made.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from harness import Story, run_cli, run_plain, run_pool, snippets

from playground.contract.config import Settings
from playground.sandbox import WorkerPool

# Differences inherent to running in the sandbox: snippet file -> why. The README lists them.
INHERENT: dict[str, str] = {}
PATHS = snippets()
# The CLI's cold worker too: 77 configures the runtime, which no worker may have touched.
THROUGH_CLI = [p for p in PATHS if p.name.startswith(("01_", "28_", "77_"))]


BATCHES = 2


def batch_of(path: Path) -> int:
    return PATHS.index(path) % BATCHES


def in_batch(path: Path) -> Any:
    """The snippet as a test parameter, in its batch's xdist group."""
    return pytest.param(path, id=path.name, marks=pytest.mark.xdist_group(f"differential-{batch_of(path)}"))


class Stories:
    """Each snippet's (plain, playground) stories, a batch at a time, as the tests ask."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool
        self.told: dict[str, tuple[Story, Story]] = {}

    def __getitem__(self, path: Path) -> tuple[Story, Story]:
        if path.name not in self.told:
            batch = [p for p in PATHS if batch_of(p) == batch_of(path)]
            with ThreadPoolExecutor(max_workers=4) as threads:
                plain = threads.map(run_plain, batch)
                played = threads.map(lambda p: run_pool(self.pool, p), batch)
                self.told.update({p.name: pair for p, pair in zip(batch, zip(plain, played))})
        return self.told[path.name]


@pytest.fixture(scope="module")
def stories() -> Iterator[Stories]:
    with WorkerPool(Settings(pool_size=2, timeout_s=100.0, cpu_s=200)) as pool:
        assert pool.wait_ready(), "the sandbox pool did not warm up"
        yield Stories(pool)


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


@pytest.mark.parametrize("path", [in_batch(p) for p in PATHS])
def test_playground_tells_plain_pythons_story(stories, path):
    if path.name in INHERENT:
        pytest.skip(INHERENT[path.name])
    _same_story(*stories[path], path.name)


@pytest.mark.parametrize("path", [in_batch(p) for p in THROUGH_CLI])
def test_cli_tells_the_same_story(stories, path):
    _same_story(stories[path][0], run_cli(path), path.name)
