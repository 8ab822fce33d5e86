"""XLA's views of one function, from a fresh jit_compile tf.function (so the user's own tracing
count is untouched): its HLO, the HLO after each pass that changed it, the time its HLO passes
took and the memory its buffers take.

The passes come from XLA's own dump (`--xla_dump_hlo_pass_re`). XLA reads XLA_FLAGS once per
process, at its first compile, so `dump_passes` sets them in a fresh worker before the job's
code runs (sandbox/worker.py); elsewhere (a notebook's kernel, an engine called in-process)
there is no dump and the views leave the passes out. Only modules named with MARK are dumped:
the inspector's, never the user's own compiles."""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tensorflow as tf

from ..contract.i18n import _
from ..contract.job import HloPass, XlaCost
from .frames import hide_paths

MARK = "playground_xla_views_"  # in the inspector's name, so in its module's: the dump's filter
FLAGS = (
    "--xla_dump_to={directory} --xla_dump_hlo_module_re=.*{mark}.* --xla_dump_hlo_pass_re=.* "
    "--xla_dump_hlo_as_text --xla_dump_disable_metadata=true"
)
MAX_PASS_TEXT = 1 << 20  # the passes' HLO in one function's report; past it, names and counts only
MAX_PASSES = 400  # snapshots kept per module (a large module runs a few hundred passes)

_dump_dir: Path | None = None
# module_0000.a_inference_playground_xla_views_f_24__.2.0005.simplification.after_algsimp.before_x.txt
_SNAPSHOT = re.compile(
    r"^module_(?P<module>\d+)\..+?\.(?P<step>\d{4})\.(?P<pipeline>[^.]+)\.after_(?P<name>[^.]+)(?:\..*)?\.txt$"
)
_INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%\S+ = ", re.MULTILINE)
_TOTAL_BYTES = re.compile(r"^Total bytes used: (\d+)", re.MULTILINE)


def dump_passes() -> bool:
    """In a fresh process, before any XLA compile: dumps the inspector's modules after each
    pass. Flags someone set already (the host's environment) stand, and then nothing is dumped."""
    global _dump_dir
    if "XLA_FLAGS" in os.environ:
        return False
    _dump_dir = Path(tempfile.mkdtemp(prefix="playground-xla-"))
    os.environ["XLA_FLAGS"] = FLAGS.format(directory=_dump_dir, mark=MARK)
    return True


@dataclass
class XlaViews:
    hlo: str | None = None
    passes: list[HloPass] = field(default_factory=list)
    cost: XlaCost | None = None
    notes: list[str] = field(default_factory=list)


def views(
    python_function: Callable, options: dict, args: list, kwargs: dict, passes: bool = False
) -> XlaViews:
    """HLO as XLA takes it; with `passes`, XLA's passes over it too: the HLO after each (where
    dumped), their time, and the buffer assignment's bytes. Module metadata names source
    files: host paths, hidden."""
    inspector = _inspector(python_function, options)
    out = XlaViews()
    try:
        compiler_ir = inspector.experimental_get_compiler_ir(*args, **kwargs)
        out.hlo = hide_paths(compiler_ir(stage="hlo")).replace(MARK, "")
        if not passes:
            return out
        dumped = _listing()
        started = time.perf_counter()
        optimized = compiler_ir(stage="optimized_hlo")
        compile_s = time.perf_counter() - started
    except Exception as e:  # noqa: BLE001 - XLA's errors are many: the note says which
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        out.notes.append(_("XLA could not produce HLO: {error}").format(error=hide_paths(first[:500])))
        return out
    files = sorted(_listing() - dumped)
    out.passes = snapshots(files)
    out.cost = XlaCost(
        compile_s=compile_s,
        instructions=instruction_count(out.hlo),
        instructions_optimized=instruction_count(optimized),
        buffer_bytes=_buffer_bytes(files),
    )
    for path in files:  # read once: the next function's compile lists only its own
        path.unlink(missing_ok=True)
    return out


def _inspector(python_function: Callable, options: dict) -> Any:
    """A fresh jit_compile tf.function over the same Python function, named with MARK (TF
    takes the name from the function when the tf.function is made; it is put back at once)."""
    target = getattr(python_function, "__func__", python_function)  # a bound method's function
    original = getattr(target, "__name__", None)
    try:
        target.__name__ = MARK + (original or "function")
        renamed = True
    except (AttributeError, TypeError):  # a callable object: no dump filter matches; no passes
        renamed = False
    try:
        return tf.function(python_function, **{**options, "jit_compile": True})
    finally:
        if renamed:
            target.__name__ = original


def _listing() -> set[Path]:
    if _dump_dir is None or not _dump_dir.is_dir():
        return set()
    return {path for path in _dump_dir.iterdir() if MARK in path.name}


def snapshots(files: list[Path]) -> list[HloPass]:
    """XLA's dumps of one module, in the order it ran its passes: a snapshot identical to the
    one before (a pipeline starting on an unchanged module) is left out."""
    ordered = sorted(
        (int(m["module"]), int(m["step"]), m["pipeline"], m["name"], path)
        for path in files
        if (m := _SNAPSHOT.match(path.name))
    )
    passes: list[HloPass] = []
    previous, kept_chars = "", 0
    for _module, _step, pipeline, name, path in ordered[:MAX_PASSES]:
        text = path.read_text(errors="replace").replace(MARK, "")
        if text == previous:
            continue
        previous = text
        kept = text if kept_chars + len(text) <= MAX_PASS_TEXT else ""
        kept_chars += len(kept)
        passes.append(
            HloPass(
                pipeline=pipeline,
                name="" if name == "pipeline-start" else name,
                hlo=hide_paths(kept),
                instructions=instruction_count(text),
            )
        )
    return passes


def instruction_count(hlo: str | None) -> int:
    return len(_INSTRUCTION.findall(hlo or ""))


def _buffer_bytes(files: list[Path]) -> int | None:
    for path in files:
        if path.name.endswith("memory-usage-report.txt"):
            found = _TOTAL_BYTES.search(path.read_text(errors="replace"))
            return int(found.group(1)) if found else None
    return None
