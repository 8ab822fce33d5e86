"""Picks the device a job runs on (GPU when present and asked for), describes the machine, and
caps each worker's share of GPU memory so concurrent workers can share one card."""
from __future__ import annotations

import os
import platform
from typing import Any

import tensorflow as tf

from ..errors import SpecError


def gpus() -> list[Any]:
    return tf.config.list_physical_devices("GPU")


def limit_gpu_memory(megabytes: int, devices: list[Any] | None = None) -> None:
    """Gives this process a fixed slice of each GPU; must run before TF touches the GPU."""
    for gpu in gpus() if devices is None else devices:
        tf.config.set_logical_device_configuration(
            gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=megabytes)])


def select(requested: str, available_gpus: list[Any] | None = None) -> str:
    """'auto' takes the first GPU if there is one; 'gpu' without one is the user's error."""
    found = gpus() if available_gpus is None else available_gpus
    if requested == "cpu":
        return "/CPU:0"
    if requested in ("gpu", "auto") and found:
        return "/GPU:0"
    if requested == "gpu":
        raise SpecError("--device gpu: this machine has no GPU that TensorFlow can see; "
                        "use --device auto or cpu")
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
        except Exception:
            return "GPU:0"
    return f"CPU ({cpu_model()})"


def environment(device: str) -> dict[str, Any]:
    """The card every result carries, so shared numbers can be reproduced."""
    return {
        "tensorflow_version": tf.__version__,
        "device": describe(device),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads(),
        "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1") != "0",
        "python": platform.python_version(),
    }
