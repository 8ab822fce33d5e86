"""deploy/grafana/playground.json: what make_dashboard.py writes, and every series its panels
query is one the server's /metrics serves (a renamed metric would leave a panel empty)."""

from __future__ import annotations

import importlib.util
import json
import re

import repo_paths

DEPLOY = repo_paths.ROOT / "deploy" / "grafana"
SERIES = re.compile(r"\b(?:playground|process)_\w+")


def maker():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_dashboard", DEPLOY / "make_dashboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SUFFIXES = {"histogram": ("_bucket", "_sum", "_count")}  # a counter's TYPE line names its _total


def served() -> set[str]:
    """The series names /metrics' text declares (its TYPE lines: a labelled family with no
    sample yet is declared too), with every door's gauges registered as the server does."""
    import playground.api.routes  # noqa: F401 - registers the API's open streams
    from playground.runs import metrics
    from playground.ui import run

    run.count_sessions()  # as the server's start does
    text = metrics.exposition()[0].decode()
    declared = [line.split()[2:4] for line in text.splitlines() if line.startswith("# TYPE ")]
    return {name + suffix for name, kind in declared for suffix in SUFFIXES.get(kind, ("",))}


def test_the_committed_dashboard_is_what_the_maker_writes():
    assert json.loads((DEPLOY / "playground.json").read_text()) == maker().dashboard()


def test_every_series_a_panel_queries_is_served():
    names = served()
    queried = {
        name
        for panel in maker().dashboard()["panels"]
        for target in panel["targets"]
        for name in SERIES.findall(target["expr"])
    }
    assert len(queried) >= 12, queried
    assert queried - names == set()
