"""Device choice and the GPU path, tested with fakes: no machine here has a GPU."""
from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from playground.engine import device, timing  # noqa: E402
from playground.errors import SpecError  # noqa: E402

FAKE_GPU = tf.config.PhysicalDevice(name="/physical_device:GPU:0", device_type="GPU")


def test_auto_prefers_a_gpu_when_present():
    assert device.select("auto", available_gpus=[FAKE_GPU]) == "/GPU:0"
    assert device.select("auto", available_gpus=[]) == "/CPU:0"
    assert device.select("cpu", available_gpus=[FAKE_GPU]) == "/CPU:0"


def test_asking_for_a_missing_gpu_is_the_users_error():
    with pytest.raises(SpecError, match="no GPU that TensorFlow can see"):
        device.select("gpu", available_gpus=[])
    with pytest.raises(SpecError, match="unknown device 'tpu'"):
        device.select("tpu", available_gpus=[])


def test_gpu_memory_limit_configures_each_gpu(monkeypatch):
    calls = []
    monkeypatch.setattr(tf.config, "set_logical_device_configuration",
                        lambda gpu, config: calls.append((gpu.name, config[0].memory_limit)))
    device.limit_gpu_memory(1024, devices=[FAKE_GPU])
    assert calls == [("/physical_device:GPU:0", 1024)]


def test_gpu_timing_synchronises_before_reading_the_clock(monkeypatch):
    events = []
    monkeypatch.setattr(tf.test.experimental, "sync_devices", lambda: events.append("sync"))
    assert timing.device_sync("/CPU:0")() is None and events == []
    sync = timing.device_sync("/GPU:0")
    measured, _, _ = timing.time_mode(lambda: events.append("call"), 0.0, sync)
    # Every sample is bracketed by syncs: no call's work can leak into the next reading.
    assert events[0] == "sync" and events[-1] == "sync"
    assert events.count("sync") >= 2 * len(measured.samples_s)


def test_gpu_peak_memory_is_read_per_mode(monkeypatch):
    resets, peaks = [], iter([1000, 2000, 3000])
    monkeypatch.setattr(tf.config.experimental, "reset_memory_stats", resets.append)
    monkeypatch.setattr(tf.config.experimental, "get_memory_info", lambda name: {"peak": next(peaks)})
    monkeypatch.setattr(timing, "device_sync", lambda device: (lambda: None))  # no real GPU
    measured = timing.measure(lambda x: x + 1, {}, [tf.constant(1.0)], {}, budget_s=0.05,
                              device="/GPU:0")
    assert resets == ["GPU:0"] * 3
    assert (measured.eager.peak_memory_bytes, measured.graph.peak_memory_bytes,
            measured.xla.peak_memory_bytes) == (1000, 2000, 3000)
    cpu = timing.measure(lambda x: x + 1, {}, [tf.constant(1.0)], {}, budget_s=0.05,
                         device="/CPU:0", xla=False)
    assert cpu.eager.peak_memory_bytes is None
