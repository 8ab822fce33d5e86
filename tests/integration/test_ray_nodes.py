"""Two Ray nodes on this machine (`ray start --head`, then `ray start --address=...`): both serve
jobs, a job whose actor dies is retried on the other node, a job lost twice is reported, and a
driver with no RAY_ADDRESS never joins this cluster by accident."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

ray = pytest.importorskip("ray", reason="Ray is optional: pip install -r requirements-ray.txt")

from ray_support import reload_auth, two_nodes  # noqa: E402
from repo_paths import ROOT  # noqa: E402

from playground.contract.config import Settings  # noqa: E402
from playground.contract.job import Job  # noqa: E402
from playground.runs.ray.executor import RayExecutor  # noqa: E402

SETTINGS = Settings(pool_size=2, timeout_s=60.0)
SLOW = (
    "import time\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n    time.sleep(1.5)\n    return x + 1\n"
)


@pytest.fixture(scope="module")
def cluster():
    saved = {
        k: os.environ.get(k)
        for k in ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN")
    }
    nodes = two_nodes(cpus_each=1)  # one slot per node: concurrent jobs must spread
    try:
        nodes.connect_here()
        ray.init(address=nodes.address, logging_level="WARNING", log_to_driver=False)
        nodes.ids = [n["NodeID"] for n in nodes.wait_nodes(2)]
        yield nodes
    finally:
        ray.shutdown()
        nodes.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reload_auth()


@pytest.fixture(scope="module")
def executor(cluster):
    ex = RayExecutor(SETTINGS)  # joins the connected cluster; never owns it
    yield ex
    ex.close()


def test_two_nodes_both_serve_jobs_and_every_report_names_its_node(cluster, executor):
    runs = [executor.start(Job(source=SLOW, function="f", calls=(f"{i}.5",))) for i in range(4)]
    reports = [executor.wait(run) for run in runs]
    assert [r.status for r in reports] == ["ok"] * 4, [r.message for r in reports]
    assert [r.functions[0].calls[0].output for r in reports] == [f"float32[] {i + 1}.5" for i in range(4)]
    served = {run.node_id for run in runs}
    assert served == set(cluster.ids), served
    for run, report in zip(runs, reports):
        assert f"node {run.node_id[:8]}" in report.executor.node and report.executor.actor


def test_a_job_whose_actor_dies_is_retried_on_the_other_node(cluster, executor):
    accepted: list[dict] = []
    killed: list[str] = []

    def on_event(event):
        if event["event"] == "accepted":
            accepted.append(event)
        if event["event"] == "call_started" and not killed:
            killed.append(accepted[-1]["node"])
            os.kill(accepted[-1]["pid"], signal.SIGKILL)

    report = executor.submit(Job(source=SLOW, function="f", calls=("1.0",)), on_event)
    assert report.status == "ok", report.message
    assert killed and report.executor.node != killed[0], report.executor  # the other node
    assert "2.0" in report.functions[0].calls[0].output


def test_a_job_lost_twice_is_reported_with_both_losses(cluster, executor):
    accepted: list[dict] = []

    def on_event(event):
        if event["event"] == "accepted":
            accepted.append(event)
        if event["event"] == "call_started":  # every attempt loses its actor
            os.kill(accepted[-1]["pid"], signal.SIGKILL)

    report = executor.submit(Job(source=SLOW, function="f", calls=("1.0",)), on_event)
    assert report.status == "killed"
    assert report.message.startswith("Killed: the job was lost 2 times on Ray (the pool actor")
    assert report.message.endswith("not retried again"), report.message
    assert len(accepted) == 2 and accepted[0]["node"] != accepted[1]["node"]  # elsewhere


def test_a_driver_without_ray_address_never_joins_a_cluster_found_on_the_machine(cluster, tmp_path):
    # This cluster's own temp dir names it in ray_current_cluster, where a plain ray.init()
    # with RAY_TMPDIR pointing there would look first.
    with open(os.path.join(cluster.root, "ray", "ray_current_cluster")) as f:
        assert f.read().strip() == cluster.address
    source = tmp_path / "f.py"
    source.write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(PLAYGROUND_EXECUTOR="ray", PLAYGROUND_POOL_SIZE="1", RAY_TMPDIR=cluster.root)
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
            "float32[2]",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    node = json.loads(done.stdout)["executor"]["node"]
    assert not any(f"node {i[:8]}" in node for i in cluster.ids), node
