"""The Ray executor on a real local Ray cluster (started here, or RAY_ADDRESS's): parity with the
local sandbox, the warm node pool, kills and retries, export through Ray, queueing, leftovers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="Ray is optional: pip install -r requirements-ray.txt")

from repo_paths import ROOT  # noqa: E402

from playground.contract.config import Settings  # noqa: E402
from playground.contract.errors import LimitError  # noqa: E402
from playground.contract.job import Job, Report  # noqa: E402
from playground.runs.ray.connect import connect  # noqa: E402
from playground.runs.ray.executor import RayExecutor, RayRun  # noqa: E402
from playground.runs.ray.node_pool import NAMESPACE, pool_name  # noqa: E402
from playground.sandbox import exports, run_once  # noqa: E402

SETTINGS = Settings(pool_size=2, timeout_s=60.0)
BRIEF = Settings(pool_size=2, timeout_s=60.0, ray_idle_s=1.0)  # a pool that soon exits idle
RETRACING = (
    "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print('tracing', x.shape)\n    return x * 2\n"
)
SLEEPER = (
    "import time\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n    time.sleep(120)\n    return x\n"
)
SLOW = (
    "import time\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n    time.sleep(2)\n    return x + 1\n"
)
AFFINE = "import tensorflow as tf\n\ndef f(x):\n    return x * 2.0 + 1.0\n"


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """The CLI's own local Ray, started first so its Ray start overlaps the other tests. Its
    Ray temp dir holds a stale ray_current_cluster, as a crashed `ray start` leaves one."""
    path = tmp_path_factory.mktemp("cli") / "f.py"
    path.write_text(RETRACING)
    stale = tempfile.mkdtemp(prefix="pgst-", dir="/tmp")  # short: Ray's socket paths
    os.makedirs(os.path.join(stale, "ray"))
    with open(os.path.join(stale, "ray", "ray_current_cluster"), "w") as f:
        f.write("127.0.0.2:1")  # nothing listens there
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(PLAYGROUND_EXECUTOR="ray", PLAYGROUND_POOL_SIZE="1", RAY_TMPDIR=stale)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "playground",
            "analyze",
            str(path),
            "--function",
            "f",
            "--call",
            "float32[3]",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    yield proc, env
    if proc.poll() is None:
        proc.kill()
        proc.communicate()
    shutil.rmtree(stale, ignore_errors=True)


@pytest.fixture(scope="module")
def executor(cli_run):
    owns = connect(num_cpus=2)  # RAY_ADDRESS's cluster, else a private local instance
    ex = RayExecutor(SETTINGS)
    try:
        yield ex
    finally:
        ex.close()  # does not own this cluster: must leave it up for the fixture
        assert ray.is_initialized()
        if not owns:  # someone else's cluster: take this module's detached pools off it
            ours = {pool_name("", s).rsplit("-", 1)[1] for s in (SETTINGS, BRIEF)}
            for actor in ray.util.list_named_actors(all_namespaces=True):
                if actor["namespace"] == NAMESPACE and actor["name"].rsplit("-", 1)[1] in ours:
                    ray.kill(ray.get_actor(actor["name"], namespace=NAMESPACE))
        ray.shutdown()


def node_pool(run: RayRun, settings: Settings = SETTINGS):
    return ray.get_actor(pool_name(run.node_id, settings), namespace=NAMESPACE)


def comparable(report: Report) -> dict:
    """A report with what legitimately differs between runs and hosts taken out."""

    def function(f):
        return {
            "name": f.name,
            "tracing_count": f.tracing_count,
            "signatures": f.concrete_signatures,
            "converted_code": f.converted_code,
            "retracing_warnings": f.retracing_warnings,
            "op_count": f.graph.op_count if f.graph else None,
            "calls": [
                (c.index, c.args, c.retraced, c.reason, c.stdout, c.output, c.error, c.tracing_count)
                for c in f.calls
            ],
        }

    return {
        "status": report.status,
        "error": report.error,
        "stdout": report.stdout,
        "message": report.message,
        "warnings": report.warnings,
        "isolation": report.sandbox.isolation if report.sandbox else None,
        "functions": [function(f) for f in report.functions],
    }


def gone(pids, timeout_s=15.0) -> bool:
    def alive(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def test_same_job_gives_the_same_report_through_both_executors(executor):
    job = Job(source=RETRACING, function="f", calls=("float32[3]", "float32[4]", "int32[3]", "float32[3]"))
    local_report: list[Report] = []
    local = threading.Thread(target=lambda: local_report.append(run_once(job, SETTINGS)))
    local.start()  # both at once: the suite has little time on 2 cores
    on_ray = executor.submit(job)
    local.join()
    (here,) = local_report

    assert on_ray.status == "ok", on_ray.message
    assert comparable(on_ray) == comparable(here)
    assert on_ray.functions[0].tracing_count == 3  # guards against two empty reports
    assert on_ray.executor.kind == "ray" and on_ray.executor.node and on_ray.executor.actor
    assert (here.executor.kind, here.executor.warm) == ("local", False)  # its own TF import


def test_jobs_after_the_first_are_forked_from_the_nodes_warm_zygotes(executor):
    job = Job(source=RETRACING, function="f", calls=("float32[3]",))
    reports = [executor.submit(job) for _ in range(3)]
    assert [r.status for r in reports] == ["ok"] * 3, [r.message for r in reports]
    ran = [r.executor for r in reports]
    assert [e.warm for e in ran[1:]] == [True, True], ran
    assert len({e.actor for e in ran}) == 1 and ran[0].actor, ran  # one pool actor, kept
    assert all(e.kind == "ray" and "node " in e.node for e in ran)


def test_a_task_cancelled_mid_run_is_killed_and_its_sandbox_is_gone(executor):
    job = Job(source=SLEEPER, function="f", calls=("float32[3]",))
    run = executor.start(job)
    pids: list[int] = []

    def on_event(event):
        if event["event"] == "call_started":  # user code is running now
            jobs = ray.get(node_pool(run).info.remote())["jobs"]
            (job_on_node,) = jobs.values()  # only this one runs
            pids.extend(job_on_node["pids"])
            executor.cancel(run, force=True)

    started = time.monotonic()
    report = executor.wait(run, on_event)
    assert report.status == "killed"
    assert report.message.startswith("Cancelled: the Ray task was stopped on ")
    assert time.monotonic() - started < 60  # nowhere near the job's 120 s sleep
    assert pids and gone(pids), "the job's sandbox outlived its Ray task"
    assert run.attempt == 1  # a cancel is never retried


def test_an_actor_killed_mid_job_costs_one_retry_and_no_report(executor):
    accepted: list[dict] = []
    killed: list[str] = []
    retries: list[dict] = []

    def on_event(event):
        if event["event"] == "accepted":
            accepted.append(event)
        if event["event"] == "call_started" and not killed:  # the job is running
            killed.append(accepted[-1]["actor"])
            os.kill(accepted[-1]["pid"], signal.SIGKILL)  # the pool actor dies under it
        if event["event"] == "retry":
            retries.append(event)

    report = executor.submit(Job(source=SLOW, function="f", calls=("1.5",)), on_event)
    assert report.status == "ok", report.message
    assert "2.5" in report.functions[0].calls[0].output  # the job's own result
    assert killed and report.executor.actor not in ("", killed[0])  # a new actor ran it
    assert [r["attempt"] for r in retries] == [2]
    assert "died" in retries[0]["reason"]


def test_more_jobs_than_slots_all_come_back_and_ray_admits_no_more_than_the_slots(executor):
    jobs = [
        Job(
            source=f"import time\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n"
            f"    time.sleep(0.5)\n    return x + {i}\n",
            function="f",
            calls=("1.5",),
        )
        for i in range(5)
    ]  # 5 jobs, 2 slots: three must queue in Ray
    runs = [executor.start(job) for job in jobs]
    reports = [executor.wait(run) for run in runs]
    assert [r.status for r in reports] == ["ok"] * 5, [r.message for r in reports]
    outputs = [r.functions[0].calls[0].output for r in reports]
    for i, output in enumerate(outputs):
        assert str(1.5 + i) in output, outputs
    assert len({r.executor.node for r in reports}) == 1  # one node, named on every report
    info = ray.get(node_pool(runs[0]).info.remote())
    assert info["peak"] == info["slots"] == 2, info  # the queue was Ray's, not the pool's


def test_an_export_comes_back_through_ray_and_reloads_here(executor):
    job = Job(source=AFFINE, function="f", calls=("float32[4,3]",), signature="float32[None,3]", export=True)
    report = executor.submit(job)
    assert report.status == "ok", report.message
    export = report.export
    try:
        # Verified on the cluster, by a fresh worker of the node's pool that reloaded it.
        assert export.verified and [s.verified for s in export.signatures] == [True], export
        assert os.path.isfile(os.path.join(export.path, "savedmodel", "saved_model.pb"))
        assert os.listdir(os.path.join(export.path, "tensorboard"))
        assert sorted(export.files) == sorted(
            os.path.relpath(os.path.join(d, f), export.path)
            for d, _, fs in os.walk(export.path)
            for f in fs
            if not f.startswith("checks")
        )
        # The files that arrived here reload and replay in a fresh local sandboxed worker.
        again = run_once(exports.verify_job(job, report), SETTINGS)
        assert again.export.verified, again.export
    finally:
        shutil.rmtree(export.path, ignore_errors=True)


def test_an_export_that_arrives_in_part_is_dropped_not_passed_on(tmp_path):
    job = Job(source=AFFINE, function="f", export=True)
    run = RayRun(job, None, 1)
    data = "aGVsbG8="  # b"hello"
    for event in (
        {"path": "savedmodel/saved_model.pb", "data": ""},
        {"path": "savedmodel/saved_model.pb", "data": data},
    ):
        run.receive(dict(event, event="file"))
    run.manifest = (2, 10)  # the node sent two files
    root = run.files.root
    sent = Report.from_json(
        json.dumps(
            {
                "tensorflow_version": "2.21.0",
                "device": "CPU",
                "status": "ok",
                "error": None,
                "stdout": "",
                "warnings": [],
                "functions": [],
                "export": {"signatures": [], "verified": True, "path": ""},
            }
        )
    )
    report = run.collect(sent)
    assert (report.export.path, report.export.verified) == ("", False)
    assert "did not arrive whole through Ray (1 of 2 files)" in report.export.reason
    assert root and not os.path.exists(root)


def test_a_job_with_attachments_is_refused_before_it_reaches_ray(executor):
    with pytest.raises(LimitError, match="attachments cannot run through Ray"):
        executor.start(Job(source="", verify="model", attachments={"model": "/tmp"}))


def test_a_gpu_job_on_a_cluster_without_gpus_times_out_in_the_queue(executor):
    waiting = RayExecutor(SETTINGS, queue_timeout_s=2.0)  # joins the fixture's cluster
    started = time.monotonic()
    report = waiting.submit(Job(source=RETRACING, function="f", calls=("float32[3]",), device="gpu"))
    assert report.status == "timeout"
    assert "no Ray node with a GPU within 2 s" in report.message
    assert time.monotonic() - started < 15


def test_an_idle_node_pool_exits_so_an_autoscaler_can_remove_the_node(executor):
    idle = RayExecutor(BRIEF)  # joins the same cluster; a pool of its own there
    run = idle.start(Job(source="print('hi')\n"))
    assert idle.wait(run).stdout == "hi\n"
    name = pool_name(run.node_id, BRIEF)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            ray.get_actor(name, namespace=NAMESPACE)
        except ValueError:
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"the idle pool actor {name} is still alive after 30 s")


def test_the_cli_starts_its_own_local_ray_despite_a_stale_cluster_file(cli_run):
    proc, env = cli_run
    # The stale file is live in that environment: a plain ray.init would try to join it.
    plain = subprocess.run(
        [sys.executable, "-c", "import ray; ray.init(num_cpus=1)"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "num_cpus and num_gpus must not be provided" in plain.stderr
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr[-2000:]
    report = json.loads(stdout)
    assert report["executor"]["kind"] == "ray"
    assert report["functions"][0]["calls"][0]["stdout"] == "tracing (3,)\n"


def test_the_driver_never_imports_tensorflow_and_ray_is_optional():
    probe = (
        "import sys\nimport playground.runs.ray.executor\n"
        "assert 'tensorflow' not in sys.modules, 'the driver imported TensorFlow'\n"
        "sys.modules['ray'] = None\ndel sys.modules['playground.runs.ray.executor']\n"
        "from playground.contract.errors import SandboxError\n"
        "try:\n    import playground.runs.ray.executor\nexcept SandboxError as e:\n"
        "    print(e)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "Ray is not installed: pip install -r requirements-ray.txt"
