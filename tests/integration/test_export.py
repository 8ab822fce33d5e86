"""SavedModel export: saved signatures, reload-and-replay verification, clear refusals, the
TensorBoard graph log, and the host side that copies exports out of the sandbox."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

tf = pytest.importorskip("tensorflow")

from repo_paths import ROOT  # noqa: E402

from playground.contract.job import Job  # noqa: E402
from playground.engine.pipeline import analyze  # noqa: E402
from playground.sandbox import exports  # noqa: E402

AFFINE = "import tensorflow as tf\n\ndef f(x):\n    return x * 2.0 + 1.0\n"
DENSE = """import tensorflow as tf

class Dense(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [3, 4]))
        self.b = tf.Variable(tf.ones([4]))

    @tf.function
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b
"""
COUNTER = """import tensorflow as tf

class Counter(tf.Module):
    def __init__(self):
        self.count = tf.Variable(0.0)

    @tf.function
    def increment(self):
        self.count.assign_add(1.0)
        return self.count.read_value()
"""


def export_and_verify(source, function, calls, **options):
    job = Job(source, function, tuple(calls), export=True, **options)
    return exports.export_then_verify(job, analyze)


def test_input_signature_with_dynamic_batch_reloads_and_matches():
    report = export_and_verify(AFFINE, "f", ["float32[2,3]", "float32[7,3]"], signature="float32[None,3]")
    export = report.export
    assert export.verified, export
    (sig,) = export.signatures
    assert (sig.key, sig.inputs, sig.outputs) == (
        "serving_default",
        {"x": "float32[None,3]"},
        {"output_0": "float32[None,3]"},
    )
    assert sig.verified and sig.max_abs_diff == 0.0 and "2 call(s) replayed" in sig.message
    assert "inputs['x'] tensor_info:\n        dtype: DT_FLOAT\n        shape: (-1, 3)" in export.listing
    # Numeric equality, checked here too, straight from the saved files.
    loaded = tf.saved_model.load(os.path.join(export.path, "savedmodel"))
    x = tf.reshape(tf.range(9, dtype=tf.float32), [3, 3])
    assert (
        loaded.signatures["serving_default"](x=x)["output_0"].numpy().tolist()
        == (x * 2.0 + 1.0).numpy().tolist()
    )


def test_module_with_variables_is_saved_with_its_weights():
    report = export_and_verify(DENSE, "Dense()", ["float32[2,3]"])
    assert report.export.verified, report.export
    loaded = tf.saved_model.load(os.path.join(report.export.path, "savedmodel"))
    x = tf.ones([1, 3])
    expected = tf.matmul(x, tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])) + 1.0
    assert loaded.signatures["serving_default"](x=x)["output_0"].numpy().tolist() == expected.numpy().tolist()


def test_stateful_function_is_saved_but_its_replay_honestly_differs():
    report = export_and_verify(COUNTER, "Counter().increment", ["", ""])
    export = report.export
    assert not export.verified
    (sig,) = export.signatures
    assert sig.verified is False and "stateful function?" in sig.message


def test_only_traced_signatures_are_saved_and_each_is_checked():
    report = export_and_verify(AFFINE, "f", ["float32[2]", "float32[5]", "float32[2]"])
    export = report.export
    assert [s.key for s in export.signatures] == ["serving_1", "serving_default"]
    assert {s.key: s.inputs["x"] for s in export.signatures} == {
        "serving_default": "float32[2]",
        "serving_1": "float32[5]",
    }
    assert all(s.verified for s in export.signatures) and export.verified
    assert "saved the 2 traced concrete signature(s)" in export.reason


@pytest.mark.parametrize(
    "source, function, calls, says",
    [
        (
            "import tensorflow as tf\n\ndef f(x, n):\n    return x * n\n",
            "f",
            ["float32[3], 2"],
            "argument 'n' is traced as Literal[2]",
        ),
        (
            "import tensorflow as tf\n\n@tf.function\ndef f():\n    v = tf.Variable(1.0)\n"
            "    return v.read_value()\n",
            "f",
            [""],
            "Cannot export: the function creates a tf.Variable in its body",
        ),
        (AFFINE + "\nf(tf.constant(1.0))\n", None, [], "Export needs an entry function"),
    ],
)
def test_impossible_exports_say_why(source, function, calls, says):
    report = export_and_verify(source, function, calls)
    assert report.export is not None and not report.export.verified
    assert report.export.signatures == []
    assert says in report.export.reason


def test_tensorboard_log_holds_the_graph():
    report = analyze(Job(AFFINE, "f", ("float32[3]",), export=True))
    (events,) = glob.glob(os.path.join(report.export.path, "tensorboard", "events.out.tfevents.*"))
    graphs = [e for e in tf.compat.v1.train.summary_iterator(events) if e.graph_def]
    assert graphs
    graph_def = tf.compat.v1.GraphDef.FromString(graphs[0].graph_def)
    assert {"Mul", "AddV2"} <= {n.op for n in graph_def.node}


def test_worker_streams_regular_files_only_and_never_follows_links(tmp_path):
    out = tmp_path / "out"
    (out / "savedmodel").mkdir(parents=True)
    (out / "savedmodel" / "saved_model.pb").write_bytes(b"model" * 300_000)  # several chunks
    secret = tmp_path / "secret"
    secret.write_text("server secret")
    os.symlink(secret, out / "savedmodel" / "leak.pb")
    os.symlink(tmp_path, out / "dirlink")
    os.mkfifo(out / "fifo")
    sink = exports.FileSink()
    exports.send_files(str(out), sink.receive)
    host, note = sink.result()
    copied = sorted(os.path.relpath(os.path.join(d, f), host) for d, _, files in os.walk(host) for f in files)
    assert copied == ["savedmodel/saved_model.pb"] and note == ""
    assert (tmp_path / "out" / "savedmodel" / "saved_model.pb").read_bytes() == open(
        os.path.join(host, "savedmodel", "saved_model.pb"), "rb"
    ).read()


def test_host_sink_refuses_paths_that_leave_it_and_stops_at_the_cap(tmp_path):
    sink = exports.FileSink(cap_bytes=1000)  # each file costs 512 bytes plus its data
    for bad in ("../escape", "/etc/passwd", "a/../../b", "", "a//b"):
        sink.receive({"event": "file", "path": bad, "data": "eA=="})
    sink.receive({"event": "file", "path": "ok/file", "data": "eHl6"})
    root, note = sink.result()
    assert sorted(os.listdir(root)) == ["ok"] and "refused 5 file path(s)" in note
    assert not (tmp_path.parent / "escape").exists()
    sink.receive({"event": "file", "path": "big", "data": "eHl6eHl6eHl6"})  # 521 more: over 1000
    assert sink.result()[0] is None and "was dropped" in sink.result()[1]
    assert not os.path.exists(root)


def test_host_sink_survives_hostile_events_and_caps_file_count():
    sink = exports.FileSink(max_files=3)
    sink.receive({"event": "file", "path": "a", "data": "not base64!"})  # refused, no crash
    sink.receive({"event": "file", "path": "a", "data": "eA=="})
    sink.receive({"event": "file", "path": "a/b", "data": "eA=="})  # "a" is a file
    sink.receive({"event": "file", "path": "/".join(["d"] * 40), "data": ""})  # too deep
    root, note = sink.result()
    assert os.listdir(root) == ["a"] and "refused 3" in note
    for i in range(5):  # empty files still count
        sink.receive({"event": "file", "path": f"f{i}", "data": ""})
    assert sink.result()[0] is None and not os.path.exists(root)
    closed = exports.FileSink(accept=False)  # a job that did not ask to export
    closed.receive({"event": "file", "path": "x", "data": "eA=="})
    assert closed.result() == (None, "refused 1 file path(s) or chunk(s)")


def test_cli_export_through_the_sandbox(tmp_path):
    source = tmp_path / "f.py"
    source.write_text(AFFINE)
    target = tmp_path / "model"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "playground",
            "analyze",
            str(source),
            "--function",
            "f",
            "--call",
            "float32[4,3]",
            "--signature",
            "float32[None,3]",
            "--export",
            str(target),
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    export = json.loads(done.stdout)["export"]
    assert export["verified"] is True and export["path"] == str(target)
    assert [s["key"] for s in export["signatures"]] == ["serving_default"]
    assert (target / "saved_model.pb").is_file() and (target / "tensorboard").is_dir()
    loaded = tf.saved_model.load(str(target))
    assert loaded.signatures["serving_default"](x=tf.zeros([1, 3]))["output_0"].numpy().tolist() == [
        [1.0, 1.0, 1.0]
    ]
