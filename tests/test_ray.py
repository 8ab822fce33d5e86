"""The Ray executor on a real local Ray cluster: parity with the local sandbox, kills, queueing."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="Ray is optional: pip install -r requirements-ray.txt")

from playground.config import Settings  # noqa: E402
from playground.job import Job, Report  # noqa: E402
from playground.ray_executor import RayExecutor  # noqa: E402
from playground.sandbox import run_once  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

SETTINGS = Settings(pool_size=2, timeout_s=60.0)
RETRACING = ("import tensorflow as tf\n\n@tf.function\ndef f(x):\n"
             "    print('tracing', x.shape)\n    return x * 2\n")
SLEEPER = ("import time\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n"
           "    time.sleep(120)\n    return x\n")


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """The CLI's own local Ray, started first so its ~10 s Ray start overlaps the other tests."""
    path = tmp_path_factory.mktemp("cli") / "f.py"
    path.write_text(RETRACING)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PLAYGROUND_EXECUTOR"] = "ray"
    proc = subprocess.Popen([sys.executable, "-m", "playground", "analyze", str(path),
                             "--function", "f", "--call", "float32[3]", "--json"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


@pytest.fixture(scope="module")
def executor(cli_run):
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    ex = RayExecutor(SETTINGS)
    try:
        yield ex
    finally:
        ex.close()            # does not own this cluster: must leave it up for the fixture
        assert ray.is_initialized()
        ray.shutdown()


def comparable(report: Report) -> dict:
    """A report with what legitimately differs between runs and hosts taken out."""
    def function(f):
        return {"name": f.name, "tracing_count": f.tracing_count,
                "signatures": f.concrete_signatures, "converted_code": f.converted_code,
                "retracing_warnings": f.retracing_warnings,
                "op_count": f.graph.op_count if f.graph else None,
                "calls": [(c.index, c.args, c.retraced, c.reason, c.stdout, c.output,
                           c.error, c.tracing_count) for c in f.calls]}
    return {"status": report.status, "error": report.error, "stdout": report.stdout,
            "message": report.message, "warnings": report.warnings,
            "isolation": report.sandbox.isolation if report.sandbox else None,
            "functions": [function(f) for f in report.functions]}


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
    job = Job(source=RETRACING, function="f",
              calls=("float32[3]", "float32[4]", "int32[3]", "float32[3]"))
    local_report: list[Report] = []
    local = threading.Thread(target=lambda: local_report.append(run_once(job, SETTINGS)))
    local.start()             # both at once: the suite has ~90 s on 2 cores
    on_ray = executor.submit(job)
    local.join()
    (here,) = local_report

    assert on_ray.status == "ok", on_ray.message
    assert comparable(on_ray) == comparable(here)
    assert on_ray.functions[0].tracing_count == 3          # guards against two empty reports
    assert on_ray.executor.kind == "ray" and on_ray.executor.node
    assert here.executor.kind == "local"


def test_a_task_cancelled_mid_run_is_killed_and_its_sandbox_is_gone(executor):
    job = Job(source=SLEEPER, function="f", calls=("float32[3]",))
    run = executor.start(job)
    pids: list[int] = []

    def on_event(event):
        if event["event"] == "started":
            pids.extend(event["sandbox_pids"])
        if event["event"] == "call_started":       # user code is running now
            executor.cancel(run, force=True)

    started = time.monotonic()
    report = executor.wait(run, on_event)
    assert report.status == "killed"
    assert report.message.startswith("Cancelled: the Ray task was stopped on ")
    assert time.monotonic() - started < 60          # nowhere near the job's 120 s sleep
    assert pids and gone(pids), "the sandbox worker outlived its Ray task"


def test_a_worker_dying_after_the_job_started_is_killed_not_retried(executor):
    job = Job(source=SLEEPER, function="f", calls=("float32[3]",))
    run = executor.start(job)

    def on_event(event):
        if event["event"] == "call_started":       # like node loss: the Ray worker vanishes
            os.kill(run.pid, signal.SIGKILL)

    report = executor.wait(run, on_event)
    assert report.status == "killed"
    assert "died while running the job" in report.message
    assert "not retried" in report.message
    assert run.attempt == 1


def test_more_jobs_than_slots_all_come_back_each_with_its_own_result(executor):
    jobs = [Job(source=f"import tensorflow as tf\n\n@tf.function\ndef f(x):\n"
                       f"    return x + {i}\n", function="f", calls=("1.5",))
            for i in range(4)]                     # 4 jobs, 2 CPUs: two must queue
    runs = [executor.start(job) for job in jobs]
    reports = [executor.wait(run) for run in runs]
    assert [r.status for r in reports] == ["ok"] * 4, [r.message for r in reports]
    outputs = [r.functions[0].calls[0].output for r in reports]
    for i, output in enumerate(outputs):
        assert str(1.5 + i) in output, outputs
    assert len({r.executor.node for r in reports}) == 1   # one node, named on every report


def test_a_gpu_job_on_a_cluster_without_gpus_times_out_in_the_queue(executor):
    waiting = RayExecutor(SETTINGS, queue_timeout_s=2.0)   # joins the fixture's cluster
    started = time.monotonic()
    report = waiting.submit(Job(source=RETRACING, function="f", calls=("float32[3]",),
                                device="gpu"))
    assert report.status == "timeout"
    assert "no Ray node with a GPU free within 2 s" in report.message
    assert time.monotonic() - started < 15


def test_the_cli_starts_its_own_local_ray_without_ray_address(cli_run):
    stdout, stderr = cli_run.communicate(timeout=120)
    assert cli_run.returncode == 0, stderr[-2000:]
    report = json.loads(stdout)
    assert report["executor"]["kind"] == "ray"
    assert report["functions"][0]["calls"][0]["stdout"] == "tracing (3,)\n"


def test_the_driver_never_imports_tensorflow_and_ray_is_optional():
    probe = ("import sys\nimport playground.ray_executor\n"
             "assert 'tensorflow' not in sys.modules, 'the driver imported TensorFlow'\n"
             "sys.modules['ray'] = None\ndel sys.modules['playground.ray_executor']\n"
             "from playground.errors import SandboxError\n"
             "try:\n    import playground.ray_executor\nexcept SandboxError as e:\n"
             "    print(e)\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "Ray is not installed: pip install -r requirements-ray.txt"
