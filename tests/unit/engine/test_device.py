"""Device choice and the GPU path, tested with fakes: no machine here has a GPU."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from playground.contract.errors import SpecError  # noqa: E402
from playground.engine import device, timing  # noqa: E402

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
    monkeypatch.setattr(
        tf.config,
        "set_logical_device_configuration",
        lambda gpu, config: calls.append((gpu.name, config[0].memory_limit)),
    )
    device.limit_gpu_memory(1024, devices=[FAKE_GPU])
    assert calls == [("/physical_device:GPU:0", 1024)]


def test_a_scripts_logical_gpus_split_the_workers_share():
    config = tf.config.LogicalDeviceConfiguration
    asked = [config(memory_limit=512), config(), config(memory_limit=4096)]
    fitted = device.fit_in_share(asked, 2048)
    assert [c.memory_limit for c in fitted] == [512, 682, 682]
    assert sum(c.memory_limit for c in fitted) <= 2048
    assert device.fit_in_share([config(memory_limit=1024)], 2048) == [config(memory_limit=1024)]


def test_share_gpu_memory_holds_when_the_script_configures_a_gpu(monkeypatch):
    """The worker's share is set first; a script that then splits the GPU (before its first
    op, as plain TF allows) gets its devices fitted into that share, and a note says so."""
    from tensorflow.python.eager import context

    from playground.engine import compat

    seen = []
    monkeypatch.setattr(
        context.Context,
        "set_logical_device_configuration",
        lambda self, dev, configs: seen.append((dev.device_type, [c.memory_limit for c in configs])),
    )
    compat.reset()
    device.share_gpu_memory(1024, [FAKE_GPU])
    tf.config.set_logical_device_configuration(FAKE_GPU, [tf.config.LogicalDeviceConfiguration()] * 2)
    cpu = tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    assert seen == [("GPU", [1024]), ("GPU", [512, 512]), ("CPU", [None, None])]
    assert [f.feature for f in compat.fallbacks()] == ["GPU memory"]
    compat.reset()


def test_asking_for_the_cpu_hides_the_gpus_without_starting_the_runtime(monkeypatch):
    hidden = []
    monkeypatch.setattr(
        tf.config, "set_visible_devices", lambda devices, kind: hidden.append((devices, kind))
    )
    with device.placement("/CPU:0", available_gpus=[FAKE_GPU]):
        pass
    assert hidden == [([], "GPU")]
    hidden.clear()
    for chosen, gpus in (("/GPU:0", [FAKE_GPU]), ("/CPU:0", [])):
        with device.placement(chosen, available_gpus=gpus):
            pass
    assert hidden == []  # TF places on GPU:0 anyway; no GPU, nothing to hide


def test_a_process_whose_runtime_is_up_gets_a_device_scope(monkeypatch):
    def too_late(devices, kind):
        raise RuntimeError("Visible devices cannot be modified after being initialized")

    monkeypatch.setattr(tf.config, "set_visible_devices", too_late)
    with device.placement("/CPU:0", available_gpus=[FAKE_GPU]):
        assert "CPU:0" in tf.constant(1.0).device


def test_a_script_that_hid_its_gpus_ran_on_the_cpu(monkeypatch):
    monkeypatch.setattr(tf.config, "get_visible_devices", lambda kind=None: [])
    assert device.effective("/GPU:0") == "/CPU:0"
    monkeypatch.setattr(tf.config, "get_visible_devices", lambda kind=None: [FAKE_GPU])
    assert device.effective("/GPU:0") == "/GPU:0"
    assert device.effective("/CPU:0") == "/CPU:0"


def test_the_environment_names_the_threads_tf_uses(monkeypatch):
    monkeypatch.setenv("TF_NUM_INTRAOP_THREADS", "2")
    monkeypatch.delenv("TF_NUM_INTEROP_THREADS", raising=False)
    monkeypatch.setattr(tf.config.threading, "get_intra_op_parallelism_threads", lambda: 0)
    monkeypatch.setattr(tf.config.threading, "get_inter_op_parallelism_threads", lambda: 3)
    found = device.environment("/CPU:0")
    # intra: the sandbox's variable; inter: what the script set
    assert (found["intra_op_threads"], found["inter_op_threads"]) == (2, 3)
    monkeypatch.delenv("TF_NUM_INTRAOP_THREADS")
    assert device.environment("/CPU:0")["intra_op_threads"] == 0  # TF's own choice


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
    monkeypatch.setattr(timing, "device_sync", lambda device: lambda: None)  # no real GPU
    measured = timing.measure(lambda x: x + 1, {}, [tf.constant(1.0)], {}, budget_s=0.05, device="/GPU:0")
    assert resets == ["GPU:0"] * 3
    assert (
        measured.eager.peak_memory_bytes,
        measured.graph.peak_memory_bytes,
        measured.xla.peak_memory_bytes,
    ) == (1000, 2000, 3000)
    cpu = timing.measure(
        lambda x: x + 1, {}, [tf.constant(1.0)], {}, budget_s=0.05, device="/CPU:0", xla=False
    )
    assert cpu.eager.peak_memory_bytes is None
