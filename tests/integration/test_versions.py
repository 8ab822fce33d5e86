"""Several TensorFlow versions side by side (playground/contract/versions.py, sandbox/versioned.py, the CLI's
`versions`, `analyze --tf` and `claims`), on the real extra venvs that scripts/install.sh --tf made.

CI installs one extra version and names it in PLAYGROUND_CI_TF_VERSION (.ci/run): there a missing
extra version fails these tests. Elsewhere they skip, saying how to install one.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import ROOT
from sandbox_support import poll
from versions_support import CI_VERSION, extra  # noqa: F401 - extra: fixture

from playground.contract import versions
from playground.contract.config import Settings
from playground.contract.errors import SpecError
from playground.contract.job import Job
from playground.sandbox import run_once
from playground.sandbox.versioned import VersionedPool, pool_sizes

IDENTITY = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n"
# The engine tests that touch TF's private APIs, and the gallery's claims (ENGINE_TESTS).
ENGINE_TESTS = [
    "tests/unit/engine/test_tracing.py",
    "tests/unit/engine/test_graphs.py",
    "tests/unit/engine/test_pitfalls.py",
    "tests/unit/engine/test_observe.py",
    "tests/unit/gallery/test_gallery.py",
]


def cli(*args, timeout=300, env=None):
    return subprocess.run(
        [sys.executable, "-m", "playground", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def fake_venv(root: Path, distribution: str, version: str) -> Path:
    """A venv as pip leaves it, as far as discovery looks: bin/python and a dist-info."""
    venv = root / f"venv-tf{version}"
    site = (
        venv
        / "lib"
        / "python3.11"
        / "site-packages"
        / f"{distribution.replace('-', '_')}-{version}.dist-info"
    )
    site.mkdir(parents=True)
    (site / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n")
    (venv / "bin").mkdir()
    (venv / "bin" / "python").symlink_to(sys.executable)
    return venv


# Discovery, without TensorFlow.


def test_discovery_reads_metadata_and_never_imports_tensorflow():
    probe = (
        "import sys, json; from playground.contract import versions; from playground.contract.config import "
        "settings; v = versions.installed(settings()); "
        "print(json.dumps([x.version for x in v] + ['tensorflow' in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    found = json.loads(done.stdout)
    assert found[-1] is False, "discovering versions imported TensorFlow"
    real = subprocess.run(
        [sys.executable, "-c", "import tensorflow as tf; print(tf.__version__)"],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.strip()
    assert found[0] == real  # the default is the interpreter's own TF


def test_listed_venvs_are_found_sorted_and_resolved_by_prefix(tmp_path):
    venvs = [
        fake_venv(tmp_path, "tensorflow-cpu", "2.13.1"),
        fake_venv(tmp_path, "tensorflow", "2.12.0"),
        tmp_path / "missing",
    ]
    settings = Settings(tf_venvs=",".join(str(v) for v in venvs))
    installed = versions.installed(settings)
    assert installed[0].default and [v.version for v in installed[1:]] == ["2.12.0", "2.13.1"]
    assert versions.resolve(settings, "2.13").python == str(venvs[0] / "bin" / "python")
    assert versions.resolve(settings, "").default
    with pytest.raises(versions.VersionError) as refused:
        versions.resolve(settings, "2.9.0")
    assert "2.12.0" in str(refused.value) and "2.13.1" in str(refused.value)


def test_pool_sizes_setting():
    assert pool_sizes("2.15.1=1, 2.18.1=2") == {"2.15.1": 1, "2.18.1": 2}
    assert pool_sizes("") == {}
    for bad in ("2.15.1", "2.15.1=x", "=1"):
        with pytest.raises(SpecError):
            pool_sizes(bad)


# Bad input: a version that is not installed.


def test_cli_refuses_a_missing_version_in_one_line_naming_the_installed(tmp_path):
    source = tmp_path / "f.py"
    source.write_text(IDENTITY)
    done = cli(
        "analyze", str(source), "--function", "f", "--call", "float32[2]", "--tf", "1.15.0", timeout=60
    )
    installed = versions.installed(Settings())
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "1.15.0" in lines[0], done.stderr
    assert all(v.version in lines[0] for v in installed), lines


def test_a_job_for_a_missing_version_gets_an_error_report_not_a_crash():
    report = run_once(
        Job(source=IDENTITY, function="f", calls=("float32[2]",), tf_version="1.15.0"), Settings()
    )
    assert report.status == "error" and report.error is not None
    assert report.error.type == "VersionError" and "1.15.0" in report.message
    assert not report.functions


# The extra version, for real.


def test_versions_command_lists_default_and_extra(extra):
    listed = json.loads(cli("versions", "--json", timeout=60).stdout)
    assert listed["versions"][0]["default"] and listed["default"] == listed["versions"][0]["version"]
    assert extra.version in [v["version"] for v in listed["versions"][1:]]


def test_analyze_runs_on_the_asked_version_in_the_same_sandbox(extra, tmp_path):
    source = tmp_path / "f.py"
    source.write_text(IDENTITY)
    args = ["analyze", str(source), "--function", "f", "--call", "float32[2]", "--json"]
    old, new = (json.loads(cli(*args, *tf).stdout) for tf in (["--tf", extra.version], []))
    assert old["tensorflow_version"] == extra.version
    assert new["tensorflow_version"] == versions.installed(Settings())[0].version
    assert old["sandbox"]["isolation"] == new["sandbox"]["isolation"]
    assert old["functions"][0]["tracing_count"] == 1


def test_pool_routes_by_version_starts_on_demand_and_shuts_idle_pools(extra):
    settings = Settings(pool_size=1, timeout_s=60.0, version_idle_s=1.0)
    events: list[dict] = []
    job = Job(source=IDENTITY, function="f", calls=("float32[2]",))
    with VersionedPool(settings) as pool:
        default = pool.submit(job)
        assert not pool.pools()  # no job asked for another version yet
        old = pool.submit(dataclasses.replace(job, tf_version=extra.version), events.append)
        again = pool.submit(dataclasses.replace(job, tf_version=extra.version))
        assert (default.tensorflow_version, old.tensorflow_version, again.tensorflow_version) == (
            versions.installed(settings)[0].version,
            extra.version,
            extra.version,
        )
        assert events[0] == {"event": "starting_version", "tf_version": extra.version}
        assert again.executor is not None and again.executor.warm  # its pool stayed warm
        assert poll(lambda: not pool.pools(), timeout_s=60.0), "the idle pool was not shut down"
        assert pool.submit(job).tensorflow_version == default.tensorflow_version


def test_warm_pool_sizes_start_with_the_server(extra):
    settings = Settings(pool_size=1, version_pools=f"{extra.version}=1")
    with VersionedPool(settings) as pool:
        assert pool.pools()[extra.version].wait_ready(1, 120.0)


def test_engine_tests_pass_on_the_extra_version(extra):
    """The engine's private-API paths (function cache, trace types, Grappler, observe's hooks,
    to_code, HLO) and the gallery, run by the extra version's own interpreter."""
    has_pytest = subprocess.run([extra.python, "-c", "import pytest"], capture_output=True)
    if has_pytest.returncode != 0:
        assert not CI_VERSION, "CI's extra venv has no pytest: scripts/install.sh --test --tf"
        pytest.skip(f"{extra.python} has no pytest: scripts/install.sh --test --tf {extra.version}")
    done = subprocess.run(
        [extra.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ENGINE_TESTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_claim_table_has_every_version(extra):
    slugs = [
        "relax-shapes-rank",
        "side-effect-numpy",
        "variable-in-function",
        "cond-branch-shapes",
        "dead-matmuls",
    ]
    done = cli("claims", "--json", *[a for s in slugs for a in ("--example", s)], timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    table = json.loads(done.stdout)
    installed = [v.version for v in versions.installed(Settings())]
    assert sorted(table["versions"]) == sorted(installed)
    assert {r["example"] for r in table["rows"]} == set(slugs)
    default = installed[0]
    for row in table["rows"]:
        assert set(row["results"]) == set(installed), row
        assert row["results"][default]["holds"], row  # the gallery's facts are the default's
        differs = [v for v in installed if row["results"][v] != row["results"][default]]
        assert bool(differs) == bool(row["changes"]), row


def test_in_process_refuses_another_version(tmp_path, extra):
    source = tmp_path / "f.py"
    source.write_text(IDENTITY)
    done = cli("analyze", str(source), "--function", "f", "--tf", extra.version, "--in-process", timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--in-process" in done.stderr


class _Recording:
    """Stands in for the Ray executor behind the wrapper under test: records what reaches it."""

    def __init__(self) -> None:
        self.jobs: list[Job] = []

    def submit(self, job, on_event=None, control=None):
        self.jobs.append(job)
        return versions.error_report(job, versions.VersionError("reached the cluster"))

    def close(self) -> None:
        pass


def test_ray_executor_runs_the_default_version_only():
    from playground.runs.executor import DefaultVersionOnly

    inner = _Recording()
    wrapped = DefaultVersionOnly(inner)
    refused = wrapped.submit(Job(source=IDENTITY, function="f", tf_version="2.15.1"))
    assert refused.status == "error" and "2.15.1" in refused.message and not inner.jobs
    assert "reached the cluster" in wrapped.submit(Job(source=IDENTITY, function="f")).message
    assert len(inner.jobs) == 1
