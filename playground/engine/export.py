"""Exports the entry function as a SavedModel (serving_default from the input_signature, else the
traced signatures), writes the checks a fresh worker will verify, and a TensorBoard graph log.

Export is refused, with a reason a user can act on, when a signature would need a Python value,
when no call traced successfully, or when TF's own save fails (e.g. a variable made in the body).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np
import tensorflow as tf

from ..contract.i18n import _, sentences
from ..contract.job import ExportInfo
from . import compat
from .tracing import TrackedFunction

MAX_CHECK_ELEMENTS = 1 << 20  # inputs + outputs kept per check; larger calls are not checked
MAX_CHECKS = 8


def out_dir() -> str:
    """A fresh temp dir: in the sandbox it is on the job's capped tmpfs, and the worker streams
    it to the host afterwards."""
    return tempfile.mkdtemp(prefix="playground-export-")


def export(tracked: TrackedFunction, options: dict, owner: Any, root: str) -> ExportInfo:
    signature = options.get("input_signature")
    if signature:
        concretes, reason = _from_signature(tracked, signature)
    else:
        concretes, reason = _from_traces(tracked)
    if not concretes:
        return ExportInfo(signatures=[], verified=False, path=root, reason=reason)
    module = tf.Module()
    module.function = tracked.fn
    module.owner = owner if isinstance(owner, tf.Module) else None
    module.captured = [v for cf in concretes.values() for v in cf.variables]
    path = os.path.join(root, "savedmodel")
    try:
        tf.saved_model.save(module, path, signatures=concretes)
    except Exception as e:  # noqa: BLE001 - TF's save errors are many; say which signature could not be saved
        return ExportInfo(signatures=[], verified=False, path=root, reason=_save_error(e))
    checks = _write_checks(tracked, os.path.join(root, "checks"))
    _write_graph_log(tracked, os.path.join(root, "tensorboard"))
    reason = sentences(
        reason, _("Wrote {n} check(s) from this run's calls for the reload test.").format(n=checks)
    )
    return ExportInfo(signatures=[], verified=False, path=root, reason=reason)


def _from_signature(tracked: TrackedFunction, signature: list) -> tuple[dict, str]:
    try:
        concrete = tracked.fn.get_concrete_function()  # the signature's trace, usually cached
    except Exception as e:  # noqa: BLE001 - the user's signature: its error is the answer
        return {}, _("Cannot export: tracing the input_signature failed: {error}").format(
            error=f"{type(e).__name__}: {_first_line(e)}"
        )
    specs = ", ".join(
        f"{s.dtype.name}{list(s.shape) if s.shape.rank is not None else '[?]'}" for s in signature
    )
    return {"serving_default": concrete}, _(
        "Saved serving_default from the input_signature ({specs}); None dims stay dynamic."
    ).format(specs=specs)


def _from_traces(tracked: TrackedFunction) -> tuple[dict, str]:
    tracked.concrete_signatures()  # make sure every trace is listed
    if not tracked.traces:
        failed = next((c.error for c in tracked.calls if c.error), None)
        why = f" ({failed.type}: {failed.headline()[:200]})" if failed else ""
        return {}, _("Cannot export: no call traced successfully, so there is no graph to save") + why
    problems = []
    for cf in tracked.traces:
        for name, param in compat.parameters(cf).items():
            constraint = param.type_constraint
            if not isinstance(constraint, tf.TensorSpec):
                problems.append(
                    _("argument {name} is traced as {constraint}").format(
                        name=repr(name), constraint=constraint
                    )
                )
    if problems:
        return {}, _(
            "Cannot export: SavedModel signatures take tensors only, but {problems}. "
            "Pass it as a tensor, or set an input_signature."
        ).format(problems="; ".join(sorted(set(problems))))
    concretes = {("serving_default" if i == 0 else f"serving_{i}"): cf for i, cf in enumerate(tracked.traces)}
    return concretes, _(
        "No input_signature: saved the {n} traced concrete signature(s) "
        "({names}); a shape that was never traced has no signature. Set an "
        "input_signature with None dims to serve any size."
    ).format(n=len(concretes), names=", ".join(concretes))


def _write_checks(tracked: TrackedFunction, folder: str) -> int:
    """Each successful all-tensor call: its inputs by parameter name and its outputs, as .npz."""
    os.makedirs(folder, exist_ok=True)
    written = 0
    for index, named, result in tracked.successes[:MAX_CHECKS]:
        if not all(isinstance(v, tf.Tensor) for v in named.values()):
            continue
        outputs = [np.asarray(t) for t in tf.nest.flatten(result) if isinstance(t, tf.Tensor)]
        arrays = {f"input__{k}": np.asarray(v) for k, v in named.items()}
        arrays.update({f"output__{i}": o for i, o in enumerate(outputs)})
        if sum(a.size for a in arrays.values()) > MAX_CHECK_ELEMENTS:
            continue
        np.savez(os.path.join(folder, f"call{index:03d}.npz"), **arrays)  # type: ignore[arg-type]  # numpy's stub: a **dict might hold allow_pickle
        written += 1
    return written


def _write_graph_log(tracked: TrackedFunction, folder: str) -> str | None:
    """A TensorBoard log of the last traced graph, for `tensorboard --logdir`."""
    if not tracked.traces:
        return None
    writer = tf.summary.create_file_writer(folder)
    with writer.as_default():
        tf.summary.graph(tracked.traces[-1].graph)
    writer.flush()
    writer.close()
    return folder


def _save_error(e: Exception) -> str:
    if "singleton tf.Variables" in str(e):
        return _(
            "Cannot export: the function creates a tf.Variable in its body, so it has no "
            "graph that runs twice. Create the variable once outside (or in a tf.Module's "
            "__init__) and export again."
        )
    return _("TensorFlow could not save it: {error}").format(error=f"{type(e).__name__}: {_first_line(e)}")


def _first_line(e: Exception) -> str:
    lines = [line for line in str(e).strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else type(e).__name__
