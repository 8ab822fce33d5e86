"""AutoGraph's source lookup through the zygote's index refreshes linecache from the same
modules as TensorFlow's own walk over sys.modules (differential: the walk is the reference)."""

from __future__ import annotations

import importlib
import linecache
import sys

import pytest

from playground.sandbox import source_lookup

inspect_utils = pytest.importorskip("tensorflow.python.autograph.pyct.inspect_utils")


def recorded(fix, obj, monkeypatch) -> list[tuple[str, int]]:
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(linecache, "updatecache", lambda path, scope=None: calls.append((path, id(scope))))
    fix(obj)
    monkeypatch.undo()
    return calls


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """Modules imported before the index is made, after it, aliased, and unloaded."""
    for name in ("early_mod", "late_mod", "gone_mod"):
        (tmp_path / f"{name}.py").write_text(f"def f(x):\n    return x  # {name}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    early, gone = importlib.import_module("early_mod"), importlib.import_module("gone_mod")
    index = source_lookup.ModulesByFile()
    late = importlib.import_module("late_mod")
    sys.modules["early_alias"] = early  # a second name for an indexed module, made later
    del sys.modules["gone_mod"]
    yield index, {"early": early, "late": late, "gone": gone}
    for name in ("early_mod", "late_mod", "early_alias"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("which", ["early", "late", "gone"])
def test_the_index_finds_the_modules_the_walk_finds(modules, which, monkeypatch):
    index, loaded = modules
    walk = inspect_utils._fix_linecache_record
    fix = source_lookup.fixer(index, walk)
    function = loaded[which].f
    expected = recorded(walk, function, monkeypatch)
    assert recorded(fix, function, monkeypatch) == expected
    if which == "early":  # under both of its names, in sys.modules' order
        assert len(expected) == 2
    if which == "gone":  # no longer loaded: nothing to refresh from
        assert expected == []


def test_a_function_of_no_module_file_refreshes_nothing(modules, monkeypatch):
    index, _ = modules
    scope: dict = {}
    exec(compile("def g():\n    return 1\n", "/nowhere/made_up.py", "exec"), scope)  # noqa: S102 - a file of no module
    walk = inspect_utils._fix_linecache_record
    assert recorded(source_lookup.fixer(index, walk), scope["g"], monkeypatch) == []
    assert recorded(walk, scope["g"], monkeypatch) == []


def test_install_replaces_the_walk_and_autograph_still_converts(monkeypatch):
    import tensorflow as tf

    monkeypatch.setattr(inspect_utils, "_fix_linecache_record", inspect_utils._fix_linecache_record)
    source_lookup.install()
    assert inspect_utils._fix_linecache_record.__module__ == source_lookup.__name__

    def step(x):
        if x > 0:
            x = x + 1
        return x

    assert "ag__.if_stmt" in tf.autograph.to_code(step)


def test_modules_imported_after_the_index_are_found_up_to_its_last_entry(tmp_path, monkeypatch):
    (tmp_path / "after_mod.py").write_text("def f(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    index = source_lookup.ModulesByFile()
    module = importlib.import_module("after_mod")
    sys.modules["after_alias"] = module
    try:
        walk = inspect_utils._fix_linecache_record
        expected = recorded(walk, module.f, monkeypatch)
        assert len(expected) == 2
        assert recorded(source_lookup.fixer(index, walk), module.f, monkeypatch) == expected
    finally:
        sys.modules.pop("after_mod", None)
        sys.modules.pop("after_alias", None)
