"""deploy/raycluster.yaml: a KubeRay RayCluster whose job pods can run the bubblewrap sandbox
without privilege. A structure test: there is no API server here, and `kubectl --dry-run=client`
still asks one for a custom resource's schema (it fails with "unable to recognize")."""

from __future__ import annotations

import json
import re

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML comes with Ray (requirements-ray.txt)")
pytest.importorskip("ray", reason="Ray is optional: pip install -r requirements-ray.txt")

from repo_paths import ROOT  # noqa: E402

from playground.runs.ray.node_pool import SLOT  # noqa: E402

MANIFEST = ROOT / "deploy" / "raycluster.yaml"
PROFILE = ROOT / "deploy" / "seccomp-bwrap.json"
CLONE_NEWUSER = 0x10000000
# The capabilities the sandbox uses as root, and nothing that opens the container.
ALLOWED_CAPS = {"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"}
# Field names from the KubeRay ray.io/v1 and Kubernetes core/v1 API references: a misspelt
# field is silently dropped by a lenient apply, so each level is checked against its fields.
SPEC_FIELDS = {
    "rayVersion",
    "authOptions",
    "enableInTreeAutoscaling",
    "autoscalerOptions",
    "headGroupSpec",
    "workerGroupSpecs",
    "headServiceAnnotations",
    "suspend",
    "managedBy",
    "gcsFaultToleranceOptions",
    "upgradeStrategy",
}
HEAD_FIELDS = {"serviceType", "headService", "enableIngress", "rayStartParams", "template"}
WORKER_FIELDS = {
    "groupName",
    "replicas",
    "minReplicas",
    "maxReplicas",
    "rayStartParams",
    "template",
    "scaleStrategy",
    "suspend",
    "idleTimeoutSeconds",
    "numOfHosts",
}
SECURITY_FIELDS = {
    "runAsUser",
    "runAsGroup",
    "runAsNonRoot",
    "allowPrivilegeEscalation",
    "capabilities",
    "seccompProfile",
    "procMount",
    "appArmorProfile",
    "privileged",
    "readOnlyRootFilesystem",
    "seLinuxOptions",
}


@pytest.fixture(scope="module")
def cluster():
    (doc,) = list(yaml.safe_load_all(MANIFEST.read_text()))
    return doc


def groups(cluster):
    yield "head", cluster["spec"]["headGroupSpec"]
    for group in cluster["spec"]["workerGroupSpecs"]:
        yield group["groupName"], group


def containers(group):
    spec = group["template"]["spec"]
    return spec.get("initContainers", []) + spec["containers"]


def walk(node, path=""):
    if isinstance(node, dict):
        for key, value in node.items():
            yield f"{path}.{key}", key, value
            yield from walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}[{i}]")


def test_it_is_a_raycluster_on_the_projects_ray_version(cluster):
    pin = re.search(r"^ray==(\S+)$", (ROOT / "requirements-ray.txt").read_text(), re.M)[1]
    assert (cluster["apiVersion"], cluster["kind"]) == ("ray.io/v1", "RayCluster")
    assert cluster["spec"]["rayVersion"] == pin
    images = {c["image"] for _, g in groups(cluster) for c in containers(g)}
    assert images and all(image.endswith(":" + pin) for image in images), images


def test_every_level_uses_only_fields_its_api_has(cluster):
    spec = cluster["spec"]
    assert set(spec) <= SPEC_FIELDS, set(spec) - SPEC_FIELDS
    assert set(spec["headGroupSpec"]) <= HEAD_FIELDS
    for group in spec["workerGroupSpecs"]:
        assert set(group) <= WORKER_FIELDS, set(group) - WORKER_FIELDS
    for _, group in groups(cluster):
        for container in containers(group):
            assert set(container["securityContext"]) <= SECURITY_FIELDS
        assert all(isinstance(v, str) for v in group["rayStartParams"].values()), (
            "rayStartParams values must be strings"
        )


def test_nothing_is_privileged_or_shares_the_hosts_namespaces(cluster):
    for path, key, value in walk(cluster):
        assert not (key in ("privileged", "hostPID", "hostIPC", "hostNetwork") and value), path
        assert not (key == "add" and "SYS_ADMIN" in value), path


def test_job_pods_carry_what_bubblewrap_needs_and_no_more(cluster):
    profile = json.loads(PROFILE.read_text())
    allows_userns = {
        rule["names"][0]
        for rule in profile["syscalls"]
        if rule.get("args") and rule["args"][0].get("value") == CLONE_NEWUSER
    }
    assert {"clone", "unshare"} <= allows_userns  # the profile the pods name
    workers = [g for name, g in groups(cluster) if name != "head"]
    assert workers
    for group in workers:
        pod = group["template"]["spec"]
        assert pod["hostUsers"] is False  # procMount Unmasked is allowed only in a userns
        for container in containers(group):
            security = container["securityContext"]
            assert security["seccompProfile"] == {
                "type": "Localhost",
                "localhostProfile": f"profiles/{PROFILE.name}",
            }
            assert security["procMount"] == "Unmasked"
            assert security["allowPrivilegeEscalation"] is False
            assert security["capabilities"]["drop"] == ["ALL"]
            assert set(security["capabilities"]["add"]) <= ALLOWED_CAPS
            assert security["runAsUser"] == 0  # per-job uids; root only inside the userns


def test_the_head_runs_no_jobs_and_worker_slots_are_their_cpus(cluster):
    spec = cluster["spec"]
    assert spec["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    assert "resources" not in spec["headGroupSpec"]["rayStartParams"]  # no slots
    for group in spec["workerGroupSpecs"]:
        (container,) = group["template"]["spec"]["containers"]
        limits = container["resources"]["limits"]
        assert group["rayStartParams"]["num-cpus"] == str(limits["cpu"])
        slots = json.loads(json.loads(group["rayStartParams"]["resources"]))  # KubeRay quoting
        assert slots == {SLOT: int(limits["cpu"])}
        assert container["resources"]["requests"] == limits  # slots are guaranteed
        assert 0 <= group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]


def test_autoscaling_is_on_and_the_cluster_needs_a_token(cluster):
    spec = cluster["spec"]
    assert spec["enableInTreeAutoscaling"] is True
    assert isinstance(spec["autoscalerOptions"]["idleTimeoutSeconds"], int)
    assert spec["authOptions"]["mode"] == "token" and spec["authOptions"]["secretName"]
