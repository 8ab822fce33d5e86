"""Container conventions, checked without a Docker engine: the Dockerfile's instructions, the pip
command it shares with scripts/install.sh, the seccomp profile (evaluated against the syscalls
bubblewrap really makes, measured with strace), docker-compose.yml and docs/hosting.md."""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile

import pytest
import repo_paths

from playground.contract.config import Settings

ROOT = repo_paths.ROOT
DOCKERFILE = ROOT / "Dockerfile"
PROFILE = ROOT / "deploy" / "seccomp-bwrap.json"
COMPOSE = ROOT / "docker-compose.yml"
INSTALL = ROOT / "scripts" / "install.sh"
BUILD_SCRIPT = ROOT / "scripts" / "build-image.sh"
REQUIREMENTS = ROOT / "requirements.txt"
HEALTH = "http://localhost:8501/_stcore/health"


# ---------------------------------------------------------------- Dockerfile
def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        full = pending + stripped
        pending = ""
        word, _, rest = full.partition(" ")
        out.append((word.upper(), rest.strip()))
    assert not pending, "the Dockerfile ends inside a continuation line"
    return out


@pytest.fixture(scope="module")
def docker() -> list[tuple[str, str]]:
    return instructions(DOCKERFILE.read_text())


def args_of(docker: list[tuple[str, str]], word: str) -> list[str]:
    return [rest for w, rest in docker if w == word]


def run_segments(docker: list[tuple[str, str]]) -> list[str]:
    """Every shell command of every RUN, split at &&."""
    return [part.strip() for rest in args_of(docker, "RUN") for part in rest.split("&&")]


def test_instruction_parser_joins_continuations_and_drops_comments() -> None:
    parsed = instructions("# c\nFROM a\nRUN x \\\n  # inner\n && y\nUSER 1\n")
    assert parsed == [("FROM", "a"), ("RUN", "x && y"), ("USER", "1")]


def base_image_default(docker) -> str:
    """FROM ${BASE_IMAGE}, declared by an ARG before it, whose default is the official image."""
    froms = args_of(docker, "FROM")
    assert froms == ["${BASE_IMAGE}"], froms
    first_from = next(i for i, (w, _) in enumerate(docker) if w == "FROM")
    args = [rest for w, rest in docker[:first_from] if w == "ARG"]
    assert len(args) == 1 and args[0].startswith("BASE_IMAGE="), args
    return args[0].split("=", 1)[1]


def test_base_is_slim_python_311_unless_the_build_says_otherwise(docker) -> None:
    assert re.fullmatch(r"python:3\.11-slim(-bookworm)?", base_image_default(docker))


def script_default(name: str) -> str:
    found = re.findall(rf"^{name}=(\S+)", BUILD_SCRIPT.read_text(), re.M)
    assert len(found) == 1, (name, found)
    return found[0]


def test_build_script_tries_the_dockerfiles_base_and_tags_composes_image(docker) -> None:
    assert script_default("OFFICIAL") == base_image_default(docker)
    assert script_default("TAG") == load_compose()["services"]["playground"]["image"]
    text = BUILD_SCRIPT.read_text()
    # Every build (the app's and the proxy's) gets the base; the app's also the variant.
    assert 'docker build "${NETWORK[@]}" --build-arg BASE_IMAGE="$BASE" "$@"' in text
    assert 'build "$TAG" "$VARIANT" . --build-arg TF_VARIANT="$VARIANT"' in text
    assert 'VARIANT="${TF_VARIANT:-cpu}"' in text


def test_build_script_refuses_an_unknown_variant() -> None:
    done = subprocess.run([str(BUILD_SCRIPT), "--variant", "tpu"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "--variant must be cpu or gpu, got 'tpu'" in done.stderr


def test_apt_installs_bubblewrap_only_without_recommends_or_curl(docker) -> None:
    apt = [s for s in run_segments(docker) if "apt-get install" in s]
    assert len(apt) == 1 and "--no-install-recommends" in apt[0]
    packages = [w for w in shlex.split(apt[0]) if not w.startswith("-") and "=" not in w]
    assert packages[packages.index("install") + 1 :] == ["bubblewrap"]
    assert not any("curl" in s or "wget" in s for s in run_segments(docker))


def install_script_pip() -> list[str]:
    lines = [line for line in INSTALL.read_text().splitlines() if re.search(r'/bin/pip"? install', line)]
    assert len(lines) == 1, lines
    words = shlex.split(lines[0].replace("${VENV}", "$VENV"), posix=False)
    return [w.strip('"') for w in words if w != "sudo_"]


def dockerfile_pip(docker) -> list[list[str]]:
    return [
        [w.strip('"') for w in shlex.split(s, posix=False)]
        for s in run_segments(docker)
        if re.search(r'/bin/pip"? install', s)
    ]


def test_dockerfile_runs_the_install_scripts_pip_command(docker) -> None:
    """So the test that the README/install commands work in a fresh venv covers the image too."""
    expected = install_script_pip()
    assert expected[:2] == ["$VENV/bin/pip", "install"] and "requirements.txt" in expected
    commands = dockerfile_pip(docker)
    assert commands and commands[0] == expected, (commands, expected)
    venv_default = re.search(r'VENV="\$\{PLAYGROUND_VENV:-([^}]+)\}"', INSTALL.read_text()).group(1)
    env = " ".join(args_of(docker, "ENV"))
    assert f"VENV={venv_default}" in env
    assert any(s.startswith('python3 -m venv "$VENV"') for s in run_segments(docker))
    assert any('chmod -R a+rX "$VENV"' in s for s in run_segments(docker))


def test_requirements_are_pinned_and_copied_before_install(docker) -> None:
    pins = [
        line.strip()
        for line in REQUIREMENTS.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[\w.]+", p) for p in pins), pins
    words = [w for w, _ in docker]
    copies = [i for i, (w, rest) in enumerate(docker) if w == "COPY" and "requirements.txt" in rest]
    first_pip = next(i for i, (w, rest) in enumerate(docker) if w == "RUN" and "pip" in rest)
    assert copies and copies[0] < first_pip, words


def test_gpu_build_arg_selects_tensorflow_and_cuda_at_the_pinned_version(docker) -> None:
    assert any(a.split("=")[0] == "TF_VARIANT" for a in args_of(docker, "ARG"))
    gpu = [s for s in run_segments(docker) if "and-cuda" in s]
    assert len(gpu) == 1
    substitution = re.search(r'"\$\((grep [^)]*)\)"', gpu[0]).group(1)
    made = subprocess.run(
        ["sh", "-c", substitution], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    pinned = re.search(r"^tensorflow==(\S+)$", REQUIREMENTS.read_text(), re.M).group(1)
    assert made == f"tensorflow[and-cuda]=={pinned}"
    assert '"$TF_VARIANT" = "gpu"' in gpu[0]


def test_copies_the_app_and_the_ignore_file_keeps_them(docker) -> None:
    copied = " ".join(args_of(docker, "COPY"))
    for path in ("app.py", "playground/", ".streamlit/"):
        assert path in copied
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert not {"app.py", "playground", ".streamlit", "requirements.txt"} & set(ignored)


def test_runs_as_non_root(docker) -> None:
    users = args_of(docker, "USER")
    assert users, "no USER: the app would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    last_user = max(i for i, (w, _) in enumerate(docker) if w == "USER")
    assert all(w != "RUN" for w, _ in docker[last_user:])


def test_exposes_8501(docker) -> None:
    assert args_of(docker, "EXPOSE") == ["8501"]


def test_healthcheck_uses_python_not_curl(docker) -> None:
    (check,) = args_of(docker, "HEALTHCHECK")
    _, _, command = check.partition("CMD ")
    argv = json.loads(command)
    assert argv[0] == "/opt/tf-playground/venv/bin/python" and argv[1] == "-c"
    assert HEALTH in argv[2] and "urllib" in argv[2]
    compile(argv[2], "<healthcheck>", "exec")
    assert "curl" not in check and "wget" not in check


def test_entrypoint_runs_streamlit_on_all_interfaces(docker) -> None:
    (entry,) = args_of(docker, "ENTRYPOINT")
    argv = json.loads(entry)
    assert argv == [
        "/opt/tf-playground/venv/bin/streamlit",
        "run",
        "app.py",
        "--server.port=8501",
        "--server.address=0.0.0.0",
    ]


# ---------------------------------------------------------------- seccomp
CLONE = {
    "CLONE_VM": 0x100,
    "CLONE_FS": 0x200,
    "CLONE_FILES": 0x400,
    "CLONE_SIGHAND": 0x800,
    "CLONE_PIDFD": 0x1000,
    "CLONE_PTRACE": 0x2000,
    "CLONE_VFORK": 0x4000,
    "CLONE_PARENT": 0x8000,
    "CLONE_THREAD": 0x10000,
    "CLONE_NEWNS": 0x20000,
    "CLONE_SYSVSEM": 0x40000,
    "CLONE_SETTLS": 0x80000,
    "CLONE_PARENT_SETTID": 0x100000,
    "CLONE_CHILD_CLEARTID": 0x200000,
    "CLONE_DETACHED": 0x400000,
    "CLONE_UNTRACED": 0x800000,
    "CLONE_CHILD_SETTID": 0x1000000,
    "CLONE_NEWCGROUP": 0x2000000,
    "CLONE_NEWUTS": 0x4000000,
    "CLONE_NEWIPC": 0x8000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
    "CLONE_IO": 0x80000000,
    "SIGCHLD": 17,
}
AF = {
    "AF_UNIX": 1,
    "AF_LOCAL": 1,
    "AF_INET": 2,
    "AF_INET6": 10,
    "AF_NETLINK": 16,
    "AF_PACKET": 17,
    "AF_VSOCK": 40,
}
NAMESPACES = (
    CLONE["CLONE_NEWUSER"]
    | CLONE["CLONE_NEWNS"]
    | CLONE["CLONE_NEWPID"]
    | CLONE["CLONE_NEWNET"]
    | CLONE["CLONE_NEWIPC"]
    | CLONE["CLONE_NEWUTS"]
)


@pytest.fixture(scope="module")
def profile() -> dict:
    return json.loads(PROFILE.read_text())


def _cmp(op: str, arg: int, value: int, two: int) -> bool:
    return {
        "SCMP_CMP_EQ": arg == value,
        "SCMP_CMP_NE": arg != value,
        "SCMP_CMP_LT": arg < value,
        "SCMP_CMP_LE": arg <= value,
        "SCMP_CMP_GT": arg > value,
        "SCMP_CMP_GE": arg >= value,
        "SCMP_CMP_MASKED_EQ": (arg & value) == two,
    }[op]


def action(
    profile: dict, name: str, args: tuple[int, ...] = (), caps: frozenset = frozenset(), arch: str = "amd64"
) -> str:
    """What Docker would make of this syscall: rules are filtered by caps and arch the way moby
    builds the filter, and a rule with args matches only if every condition holds."""
    for rule in profile["syscalls"]:
        if name not in rule["names"]:
            continue
        inc, exc = rule.get("includes", {}), rule.get("excludes", {})
        if inc.get("caps") and not set(inc["caps"]) <= caps:
            continue
        if inc.get("arches") and arch not in inc["arches"]:
            continue
        if exc.get("caps") and set(exc["caps"]) & caps:
            continue
        if exc.get("arches") and arch in exc["arches"]:
            continue
        conditions = rule.get("args") or []
        if all(
            c["index"] < len(args) and _cmp(c["op"], args[c["index"]], c["value"], c.get("valueTwo", 0))
            for c in conditions
        ):
            return rule["action"]
    return profile["defaultAction"]


def test_profile_is_dockers_shape_with_errno_default(profile) -> None:
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    ops = {
        "SCMP_CMP_EQ",
        "SCMP_CMP_NE",
        "SCMP_CMP_LT",
        "SCMP_CMP_LE",
        "SCMP_CMP_GT",
        "SCMP_CMP_GE",
        "SCMP_CMP_MASKED_EQ",
    }
    for rule in profile["syscalls"]:
        assert rule["names"] and rule["action"] in ("SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO")
        assert all(c["op"] in ops for c in rule.get("args") or [])
    names = {n for r in profile["syscalls"] for n in r["names"]}
    assert {"read", "write", "openat", "execve", "futex", "clone", "unshare"} <= names


def test_profile_allows_what_bubblewrap_needs_without_capabilities(profile) -> None:
    allow = "SCMP_ACT_ALLOW"
    assert action(profile, "clone", (NAMESPACES | CLONE["CLONE_NEWCGROUP"] | 17,)) == allow
    assert action(profile, "unshare", (CLONE["CLONE_NEWUSER"],)) == allow
    for name in ("mount", "umount2", "pivot_root", "sethostname"):
        assert action(profile, name) == allow, name
    # Ordinary clone (threads, fork) still passes through Docker's own rule.
    assert action(profile, "clone", (CLONE["CLONE_VM"] | CLONE["CLONE_THREAD"],)) == allow


def test_profile_stays_closed_elsewhere(profile) -> None:
    deny = "SCMP_ACT_ERRNO"
    # Namespaces without a new user namespace need CAP_SYS_ADMIN: still refused.
    assert action(profile, "unshare", (CLONE["CLONE_NEWNS"],)) == deny
    assert action(profile, "unshare", (CLONE["CLONE_NEWNET"],)) == deny
    assert action(profile, "clone", (CLONE["CLONE_NEWNS"] | 17,)) == deny
    for name in (
        "setns",
        "chroot",
        "bpf",
        "keyctl",
        "kexec_load",
        "init_module",
        "fsopen",
        "move_mount",
        "open_by_handle_at",
        "reboot",
        "swapon",
    ):
        assert action(profile, name) == deny, name
    assert action(profile, "clone3") == deny  # ENOSYS, so glibc falls back to clone
    assert action(profile, "socket", (AF["AF_VSOCK"],)) == deny
    assert action(profile, "socket", (AF["AF_INET"],)) == "SCMP_ACT_ALLOW"


def test_additions_to_dockers_default_are_documented(profile) -> None:
    readme = (ROOT / "deploy" / "README.md").read_text()
    added = [r for r in profile["syscalls"] if r.get("comment", "").startswith("bwrap:")]
    assert {n for r in added for n in r["names"]} == {
        "clone",
        "unshare",
        "mount",
        "umount2",
        "pivot_root",
        "sethostname",
    }
    for rule in added:
        for name in rule["names"]:
            assert f"`{name}`" in readme, name


# An optional pid: strace -f prefixes one, -ff (a file per process) does not.
STRACE_LINE = re.compile(r"^(?:\d+\s+)?([a-z_0-9]+)\((.*)\)\s+=\s+(-?\d+|\?)")


def parse_trace(text: str) -> list[tuple[str, tuple[int, ...]]]:
    calls = []
    for line in text.splitlines():
        m = STRACE_LINE.match(line)
        if not m:
            continue
        name, raw = m.group(1), m.group(2)
        args: tuple[int, ...] = ()
        if name in ("clone", "unshare"):
            flags = re.search(r"flags=([A-Z_|0-9]+)", raw) if name == "clone" else None
            words = (flags.group(1) if flags else raw.split(",")[0]).split("|")
            args = (sum(CLONE.get(w, 0) if not w.isdigit() else int(w) for w in words),)
        elif name == "socket":
            args = (AF.get(raw.split(",")[0].strip(), 0),)
        elif name == "personality":
            args = (int(raw.split()[0], 0) if raw.split() and raw.split()[0][0].isdigit() else 0,)
        calls.append((name, args))
    return calls


def test_trace_parser_reads_clone_flags() -> None:
    line = "12 clone(child_stack=NULL, flags=CLONE_NEWNS|CLONE_NEWUSER|SIGCHLD) = 13"
    assert parse_trace(line) == [("clone", (CLONE["CLONE_NEWNS"] | CLONE["CLONE_NEWUSER"] | 17,))]
    assert parse_trace("5 unshare(CLONE_NEWUSER)            = 0") == [("unshare", (0x10000000,))]


# What a zygote's fork does to isolate itself (zygote._keeper and _worker), without TensorFlow;
# the worker's exit status is the script's, so a step that fails fails the test.
FORK_ISOLATION = """import os, signal, sys
from playground.sandbox import namespaces, zygote
namespaces.unshare_all()
namespaces.private_mounts(8, "/job/f0", "/job")
init = zygote._spawn_init()
pid = os.fork()
if pid == 0:
    namespaces.become_job()
    os._exit(0)
ended = zygote._wait_leaving_zombie(pid)
os.waitpid(pid, 0)
os.kill(init, signal.SIGKILL)
os.waitpid(init, 0)
sys.exit(ended.si_status if ended else 99)
"""


def traced_in_bwrap(
    command: list[str], code: str, nested_userns: bool = False
) -> list[tuple[str, tuple[int, ...]]]:
    """Runs command inside the sandbox's real bwrap command line (as an unprivileged uid, like
    the image's) under strace, and returns every syscall made; nested_userns as a zygote's."""
    import sys

    from playground.sandbox import bwrap, layout

    uid = 65534 if os.geteuid() == 0 else None
    if bwrap.probe(uid):
        pytest.skip(f"bubblewrap does not work here: {bwrap.probe(uid)}")
    with tempfile.TemporaryDirectory(prefix="playground-seccomp-") as scratch:
        os.chmod(scratch, 0o755)
        job = os.path.join(scratch, "job")
        os.makedirs(os.path.join(job, "f0"), 0o755)
        os.chmod(job, 0o755)
        trace = os.path.join(scratch, "trace.txt")
        env = {"PATH": "/usr/bin", "PYTHONPATH": bwrap.CODE_MOUNT}
        argv = bwrap.argv(
            command,
            env,
            prefix=layout.interpreter_prefix(sys.executable),
            code_dir=code,
            job_dir=job,
            tmp_mb=8,
            nested_userns=nested_userns,
        )
        drop = (
            [
                shutil.which("setpriv") or "/usr/bin/setpriv",
                "--reuid",
                str(uid),
                "--regid",
                str(uid),
                "--clear-groups",
            ]
            if uid
            else []
        )
        # -ff: one file per process, so no syscall line is split by another process's
        # ("<unfinished ...>" / "resumed>"), which made a busy machine lose the clone line.
        done = subprocess.run(
            ["strace", "-ff", "-qq", "-o", trace, *drop, *argv],
            env={},
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0 and "ptrace" in done.stderr:
            pytest.skip(f"strace cannot trace here: {done.stderr.strip()[:200]}")
        assert done.returncode == 0, done.stderr
        return [
            call
            for part in sorted(pathlib.Path(scratch).glob("trace.txt.*"))
            for call in parse_trace(part.read_text())
        ]


def refused(profile: dict, calls: list[tuple[str, tuple[int, ...]]]) -> list:
    # execve of setpriv and bwrap happens before the container's filter would matter less; all count.
    return sorted({(n, a) for n, a in calls if action(profile, n, a) != "SCMP_ACT_ALLOW"})


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed")
def test_profile_allows_every_syscall_of_the_sandboxes_own_bwrap_command(profile) -> None:
    """Measured, not guessed: every syscall of bwrap itself, evaluated against the profile."""
    with tempfile.TemporaryDirectory(prefix="playground-code-") as code:
        os.chmod(code, 0o755)
        calls = traced_in_bwrap(["/usr/bin/true"], code)
    assert {"clone", "mount", "pivot_root"} <= {name for name, _ in calls}
    assert not refused(profile, calls), f"the profile would refuse: {refused(profile, calls)}"


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed")
def test_profile_allows_a_forked_worker_to_isolate_itself(profile) -> None:
    """The zygote's forks make their own namespaces and mounts inside bwrap's: measured too."""
    import sys

    from playground.sandbox import layout

    calls = traced_in_bwrap(
        [sys.executable, "-c", FORK_ISOLATION], layout.code_dir(), nested_userns=True
    )  # a zygote's bwrap: its forks isolate themselves
    unshares = [args for name, args in calls if name == "unshare"]
    assert any(flags[0] & NAMESPACES == NAMESPACES for flags in unshares), unshares
    assert {"mount", "capset", "prctl"} <= {name for name, _ in calls}
    # PID 1 is posix_spawn'ed: glibc tries clone3, which the profile answers ENOSYS (its args are
    # a struct it cannot inspect), and then falls back to clone(CLONE_VM | CLONE_VFORK).
    vfork = CLONE["CLONE_VM"] | CLONE["CLONE_VFORK"] | 17
    assert action(profile, "clone", (vfork,)) == "SCMP_ACT_ALLOW"
    refusals = [call for call in refused(profile, calls) if call != ("clone3", ())]
    assert not refusals, f"the profile would refuse: {refusals}"


# ---------------------------------------------------------------- compose
def load_compose() -> dict:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    return yaml.safe_load(COMPOSE.read_text())


@pytest.fixture(scope="module")
def service() -> dict:
    services = load_compose()["services"]
    assert set(services) == {"playground", "proxy", "prometheus"}
    assert services["prometheus"]["profiles"] == ["metrics"]  # only when asked for
    return services["playground"]


def _megabytes(size: str) -> float:
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)([kmg]?)b?", str(size).lower()).groups()
    return float(number) * {"": 1 / 2**20, "k": 1 / 1024, "m": 1, "g": 1024}[unit]


def test_compose_sets_the_recommended_limits(service) -> None:
    assert service["init"] is True
    assert service["read_only"] is True
    assert any(t.split(":")[0] == "/tmp" for t in service["tmpfs"])
    assert int(service["pids_limit"]) > 0
    memory = _megabytes(service["mem_limit"])
    per_job = int(service["environment"]["PLAYGROUND_MEMORY_MB"])
    assert memory >= per_job  # at least one worker fits; RSS stays well below address space
    assert service["cap_drop"] == ["ALL"] and not service.get("cap_add")
    assert not service.get("privileged")
    # Reached through the proxy only: exposed on the compose network, never published.
    assert "ports" not in service and [str(p) for p in service["expose"]] == ["8501"]
    assert service["environment"]["PLAYGROUND_CLIENT_IP_HEADER"] == "X-Forwarded-For"


def test_compose_runs_the_proxy_hardened_in_front_of_the_app() -> None:
    proxy = load_compose()["services"]["proxy"]
    assert proxy["build"]["context"] == "deploy/proxy" and proxy["depends_on"] == ["playground"]
    assert proxy["read_only"] is True and proxy["cap_drop"] == ["ALL"] and not proxy.get("cap_add")
    assert "no-new-privileges:true" in proxy["security_opt"] and not proxy.get("privileged")
    assert proxy["environment"]["PROXY_UPSTREAM"] == "playground:8501"
    listen = proxy["environment"]["PROXY_LISTEN"]
    assert [str(p).rsplit(":", 1)[1] for p in proxy["ports"]] == [listen]
    assert int(listen) >= 1024  # unprivileged: the proxy runs as a non-root uid


def test_compose_uses_the_shipped_seccomp_profile(service) -> None:
    opts = service["security_opt"]
    seccomp = [o.split("=", 1)[1] for o in opts if o.startswith("seccomp=")]
    assert seccomp == ["deploy/seccomp-bwrap.json"] and (ROOT / seccomp[0]).is_file()
    assert "no-new-privileges:true" in opts
    assert not any("unconfined" in o and o.startswith("seccomp") for o in opts)


def test_compose_healthcheck_and_environment_are_real_settings(service) -> None:
    check = service["healthcheck"]["test"]
    assert check[0] == "CMD" and HEALTH in check[-1] and "curl" not in " ".join(check)
    fields = {f"PLAYGROUND_{f.name.upper()}": f for f in dataclasses.fields(Settings)}
    env = service["environment"]
    unknown = set(env) - set(fields)
    assert not unknown, f"not settings in playground/contract/config.py: {unknown}"
    for name, value in env.items():
        value = re.sub(r"^\$\{[A-Z_]+:-(.*)\}$", r"\1", str(value))
        kind = type(fields[name].default)
        if kind in (int, float):
            kind(value)
    assert re.sub(r"^\$\{[A-Z_]+:-(.*)\}$", r"\1", env["PLAYGROUND_ISOLATION"]) == "bubblewrap"


def test_hosting_doc_lists_every_setting_and_never_recommends_privileged() -> None:
    doc = (ROOT / "docs" / "hosting.md").read_text()
    for field in dataclasses.fields(Settings):
        assert f"PLAYGROUND_{field.name.upper()}" in doc, field.name
    commands = [line for line in doc.splitlines() if line.startswith(("docker run", "  "))]
    assert not any("--privileged" in line for line in commands)
    assert "--init" in doc and "--gpus all" in doc and "TF_VARIANT=gpu" in doc
    assert "seccomp=deploy/seccomp-bwrap.json" in doc and "Reduced isolation" in doc


# ---------------------------------------------------------------- the install, for real
def _online(host: str = "pypi.org") -> bool:
    try:
        socket.create_connection((host, 443), timeout=3).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(
    not os.environ.get("PLAYGROUND_SLOW_TESTS"),
    reason="slow (resolves TensorFlow's wheel); set PLAYGROUND_SLOW_TESTS=1",
)
def test_dockerfiles_pip_command_resolves_in_a_fresh_venv(docker) -> None:
    if not _online() and not os.environ.get("PIP_FIND_LINKS"):
        pytest.skip("offline and no local wheel directory")
    base = "/usr/bin/python3.11" if os.path.exists("/usr/bin/python3.11") else sys.executable
    with tempfile.TemporaryDirectory(prefix="playground-venv-") as venv:
        subprocess.run([base, "-m", "venv", venv], check=True, timeout=120)
        pip = dockerfile_pip(docker)[0]
        argv = [p.replace("$VENV", venv) for p in pip] + ["--dry-run"]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
