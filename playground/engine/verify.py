"""Verifies an exported SavedModel in a fresh worker that never ran the user's code: loads it,
lists its signatures as `saved_model_cli show --all` would, and replays the recorded calls."""

from __future__ import annotations

import glob
import os
from typing import Any

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import types_pb2
from tensorflow.python.saved_model import loader_impl

from ..contract.job import ExportInfo, ExportSignature

RTOL, ATOL = 1e-5, 1e-6


def _spec_text(info: Any) -> str:
    dtype = tf.dtypes.as_dtype(info.dtype).name
    if info.tensor_shape.unknown_rank:
        return f"{dtype}[?]"
    dims = ",".join("None" if d.size < 0 else str(d.size) for d in info.tensor_shape.dim)
    return f"{dtype}[{dims}]"


def listing(signature_defs: Any) -> str:
    """The text saved_model_cli show --all prints for each signature."""
    lines = []
    for key in sorted(signature_defs):
        sig = signature_defs[key]
        lines.append(f"signature_def['{key}']:")
        for title, tensors in (("input", sig.inputs), ("output", sig.outputs)):
            lines.append(f"  The given SavedModel SignatureDef contains the following {title}(s):")
            for name in sorted(tensors):
                info = tensors[name]
                shape = (
                    "unknown_rank"
                    if info.tensor_shape.unknown_rank
                    else "("
                    + ", ".join(str(d.size) for d in info.tensor_shape.dim)
                    + ("," if len(info.tensor_shape.dim) == 1 else "")
                    + ")"
                )
                lines += [
                    f"    {title}s['{name}'] tensor_info:",
                    f"        dtype: {types_pb2.DataType.Name(info.dtype)}",
                    f"        shape: {shape}",
                    f"        name: {info.name}",
                ]
        lines.append(f"  Method name is: {sig.method_name}")
    return "\n".join(lines)


def verify(root: str) -> ExportInfo:
    path = os.path.join(root, "savedmodel")
    signature_defs = {
        k: v
        for k, v in loader_impl.parse_saved_model(  # __saved_model_init_op is TF's, not a serving signature
            path
        )
        .meta_graphs[0]
        .signature_def.items()
        if not k.startswith("__")
    }
    loaded = tf.saved_model.load(path)
    checks = [dict(np.load(f)) for f in sorted(glob.glob(os.path.join(root, "checks", "*.npz")))]
    results: dict[str, list[tuple[bool, float, str]]] = {k: [] for k in signature_defs}
    for check in checks:
        inputs = {k.removeprefix("input__"): v for k, v in check.items() if k.startswith("input__")}
        expected = [
            check[k]
            for k in sorted(
                (k for k in check if k.startswith("output__")), key=lambda k: int(k.split("__")[1])
            )
        ]
        key = _fitting(signature_defs, inputs)
        if key is None:
            continue
        results[key].append(_replay(loaded.signatures[key], inputs, expected))
    signatures = []
    for key in sorted(signature_defs):
        sig, runs = signature_defs[key], results[key]
        diff = max((d for _, d, _ in runs), default=None)
        ok = all(r for r, _, _ in runs) if runs else None
        message = "; ".join(m for _, _, m in runs if m) or (
            f"{len(runs)} call(s) replayed, outputs match"
            if ok
            else "no call of this run fits this signature"
        )
        signatures.append(
            ExportSignature(
                key=key,
                inputs={n: _spec_text(t) for n, t in sig.inputs.items()},
                outputs={n: _spec_text(t) for n, t in sig.outputs.items()},
                method=sig.method_name,
                verified=ok,
                max_abs_diff=diff,
                message=message,
            )
        )
    verified = (
        bool(signatures)
        and all(s.verified for s in signatures if s.verified is not None)
        and any(s.verified for s in signatures)
    )
    return ExportInfo(
        signatures=signatures,
        verified=verified,
        path=root,
        listing=listing(signature_defs),
        files=_files(root),
        size_bytes=sum(os.path.getsize(os.path.join(root, f)) for f in _files(root)),
    )


def _fitting(signature_defs: Any, inputs: dict[str, np.ndarray]) -> str | None:
    for key in sorted(signature_defs):
        sig = signature_defs[key]
        if set(sig.inputs) != set(inputs):
            continue
        if all(_fits(sig.inputs[n], v) for n, v in inputs.items()):
            return key
    return None


def _fits(info: Any, value: np.ndarray) -> bool:
    if tf.dtypes.as_dtype(info.dtype) != tf.dtypes.as_dtype(value.dtype):
        return False
    if info.tensor_shape.unknown_rank:
        return True
    dims = [d.size for d in info.tensor_shape.dim]
    return len(dims) == value.ndim and all(d < 0 or d == s for d, s in zip(dims, value.shape))


def _replay(function: Any, inputs: dict, expected: list) -> tuple[bool, float, str]:
    try:
        out = function(**{k: tf.constant(v) for k, v in inputs.items()})
    except Exception as e:  # noqa: BLE001 - any call error is the verdict
        return False, float("inf"), f"calling it failed: {type(e).__name__}: {str(e)[:200]}"
    got = [np.asarray(out[k]) for k in sorted(out, key=_output_order)]
    if len(got) != len(expected):
        return False, float("inf"), f"{len(got)} output(s), the run returned {len(expected)}"
    diff = 0.0
    for g, want in zip(got, expected):
        if g.shape != want.shape:
            return False, float("inf"), f"output shape {g.shape}, the run returned {want.shape}"
        if g.dtype.kind in "fc":
            diff = max(diff, float(np.max(np.abs(g - want))) if g.size else 0.0)
            if not np.allclose(g, want, rtol=RTOL, atol=ATOL):
                return (
                    False,
                    diff,
                    (
                        f"outputs differ by up to {diff:.3g} (a stateful function? "
                        "variables are saved with their values at export time)"
                    ),
                )
        elif not np.array_equal(g, want):
            return False, float("nan"), "outputs differ"
    return True, diff, ""


def _output_order(name: str) -> tuple[int, str]:
    tail = name.rsplit("_", 1)[-1]
    return (int(tail), name) if tail.isdigit() else (1 << 30, name)


def _files(root: str) -> list[str]:
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)
