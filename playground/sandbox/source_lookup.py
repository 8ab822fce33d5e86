"""AutoGraph's source lookup, without touching every loaded module in a fork.

Before AutoGraph reads a function's source it refreshes linecache for the function's file from
every loaded module whose `__file__` is that file (`inspect_utils._fix_linecache_record`). It
finds them by walking all of `sys.modules` (some 3,400 modules once TensorFlow is in), and a
walk writes each module's reference count. In a fork of the zygote every page it writes is
copied: a job's first conversion cost 16 ms and 4,400 page copies, where the same walk costs a
plain process 3 ms. The zygote indexes its modules by file once (`install`), so a fork looks up
those and walks only the modules imported since.

What the lookup finds matches the walk, with one difference: a module put under a key that
already existed before the zygote indexed (`sys.modules["json"] = mine`) is not found under
that key. It changes nothing where the file is on disk, which linecache then reads whatever
module it is given; the job's own module is also under a name of its own (engine/source.py).
"""

from __future__ import annotations

import inspect
import linecache
import sys
from collections.abc import Callable
from types import ModuleType


class ModulesByFile:
    """The loaded modules by `__file__`, as of its making, and those imported since."""

    def __init__(self) -> None:
        self.names = dict(sys.modules)
        self.indexed: dict[str, list[tuple[str, ModuleType]]] = {}
        for name, module in self.names.items():
            path = getattr(module, "__file__", None)  # as the walk does: a lazy module loads
            if isinstance(path, str):
                self.indexed.setdefault(path, []).append((name, module))
        self.last = next(reversed(self.names), None)

    def of(self, path: str) -> list[ModuleType]:
        """The modules loaded now whose __file__ is path, in sys.modules' order (a module
        under two names twice, as the walk finds it)."""
        found = [module for name, module in self.indexed.get(path, ()) if sys.modules.get(name) is module]
        newer: list[ModuleType] = []
        for name in reversed(sys.modules):  # newest first, up to the last one indexed
            if name == self.last:
                break
            module = sys.modules.get(name)
            if self.names.get(name) is module:  # indexed (the last one was unloaded: we walk on)
                continue
            if module is not None and getattr(module, "__file__", None) == path:  # each name, as the walk
                newer.append(module)
        return found + newer[::-1]


def install() -> None:
    """In the zygote, after its imports: AutoGraph uses the index from here on."""
    try:
        from tensorflow.python.autograph.pyct import inspect_utils
    except ImportError:
        return
    inspect_utils._fix_linecache_record = fixer(ModulesByFile(), inspect_utils._fix_linecache_record)


def fixer(modules: ModulesByFile, walk: Callable[[object], None]) -> Callable[[object], None]:
    """`_fix_linecache_record` through the index; `walk`, TensorFlow's own, where it cannot."""

    def fix_linecache_record(obj: object) -> None:
        if not hasattr(obj, "__module__"):
            return
        path = inspect.getfile(obj)  # type: ignore[arg-type]
        try:
            matches = modules.of(path)
        except RuntimeError:  # another thread imported meanwhile: the walk, as TensorFlow does
            walk(obj)
            return
        for module in matches:
            if obj.__module__ is not module:  # TensorFlow's test: a name is never its module
                linecache.updatecache(path, module.__dict__)

    return fix_linecache_record
