"""Picks the device a job runs on (GPU when present and asked for), describes the machine, and
caps each worker's share of GPU memory so concurrent workers can share one card.

Nothing here initialises TF's eager context before the user's first line: once it is
initialised, a script can no longer set threads, devices or placement, as it can under plain TF.
Listing physical devices, reading thread settings and set_visible_devices leave it alone; a
tf.device scope does not."""

from __future__ import annotations

import os
import platform
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import tensorflow as tf
from tensorflow.python.eager import context

from ..contract.errors import SpecError
from ..contract.i18n import _
from . import compat


def gpus() -> list[Any]:
    return tf.config.list_physical_devices("GPU")


def limit_gpu_memory(megabytes: int, devices: list[Any] | None = None) -> None:
    """Gives this process a fixed slice of each GPU; must run before TF touches the GPU."""
    for gpu in gpus() if devices is None else devices:
        tf.config.set_logical_device_configuration(
            gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=megabytes)]
        )


def share_gpu_memory(megabytes: int, devices: list[Any]) -> None:
    """The worker's slice of each GPU, which a script's own logical GPUs then split: a script
    may still divide a GPU (set_logical_device_configuration, before its first op), but each
    logical GPU gets at most an equal part of the slice, so the card stays shared."""
    limit_gpu_memory(megabytes, devices)
    original = context.Context.set_logical_device_configuration

    def within_share(self: Any, dev: Any, virtual_devices: Any) -> Any:
        if getattr(dev, "device_type", "") == "GPU" and virtual_devices:
            fitted = fit_in_share(list(virtual_devices), megabytes)
            if fitted != list(virtual_devices):
                compat.note(
                    "GPU memory",
                    _(
                        "each logical GPU gets at most {mb} MiB: this worker's share of the card "
                        "({share} MiB) divided among the {count} devices the script made"
                    ).format(mb=megabytes // len(fitted), share=megabytes, count=len(fitted)),
                )
            virtual_devices = fitted
        return original(self, dev, virtual_devices)

    context.Context.set_logical_device_configuration = within_share


def fit_in_share(configurations: list[Any], megabytes: int) -> list[Any]:
    """Logical device configurations with each memory limit at most megabytes / count
    (no limit, which means the whole card, becomes that part)."""
    part = max(1, megabytes // len(configurations))
    return [c._replace(memory_limit=min(c.memory_limit or part, part)) for c in configurations]


def placement(device: str, available_gpus: list[Any] | None = None) -> AbstractContextManager[Any]:
    """Applies the job's device as a script would, without touching the eager context: asking
    for the CPU where there is a GPU hides the GPUs (tf.config.set_visible_devices). GPU:0 is
    where TF places ops anyway. Only a process whose context is already up (an in-process
    run after another) gets a tf.device scope instead."""
    found = gpus() if available_gpus is None else available_gpus
    if "CPU" not in device or not found:
        return nullcontext()
    try:
        tf.config.set_visible_devices([], "GPU")
        return nullcontext()
    except RuntimeError:  # visible devices are fixed once it is initialised
        return tf.device(device)


def effective(device: str) -> str:
    """The device the job's ops could use after the script ran: a script that hid its GPUs
    ran on the CPU."""
    if "GPU" in device and not tf.config.get_visible_devices("GPU"):
        return "/CPU:0"
    return device


def select(requested: str, available_gpus: list[Any] | None = None) -> str:
    """'auto' takes the first GPU if there is one; 'gpu' without one is the user's error."""
    found = gpus() if available_gpus is None else available_gpus
    if requested == "cpu":
        return "/CPU:0"
    if requested in ("gpu", "auto") and found:
        return "/GPU:0"
    if requested == "gpu":
        raise SpecError(
            "--device gpu: this machine has no GPU that TensorFlow can see; use --device auto or cpu"
        )
    if requested != "auto":
        raise SpecError(f"unknown device {requested!r}: use auto, cpu or gpu")
    return "/CPU:0"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe(device: str) -> str:
    if "GPU" in device:
        try:
            details = tf.config.experimental.get_device_details(gpus()[0])
            return f"GPU:0 ({details.get('device_name', 'GPU')})"
        except Exception:  # noqa: BLE001 - the GPU's name is decoration
            return "GPU:0"
    return f"CPU ({cpu_model()})"


def environment(device: str) -> dict[str, Any]:
    """The card every result carries, so shared numbers can be reproduced."""
    return {
        "tensorflow_version": tf.__version__,
        "device": describe(device),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "intra_op_threads": _threads(
            tf.config.threading.get_intra_op_parallelism_threads(), "TF_NUM_INTRAOP_THREADS"
        ),
        "inter_op_threads": _threads(
            tf.config.threading.get_inter_op_parallelism_threads(), "TF_NUM_INTEROP_THREADS"
        ),
        "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1") != "0",
        "python": platform.python_version(),
    }


def _threads(configured: int, variable: str) -> int:
    """What TF uses: the script's setting, else the environment's (the sandbox sets it), else
    0, TF's own choice (one thread per core)."""
    if configured:
        return configured
    value = os.environ.get(variable, "")
    return int(value) if value.isdigit() else 0
