"""Decides whether bubblewrap namespaces work here (probed once) and builds its command line."""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess

BWRAP = shutil.which("bwrap") or "/usr/bin/bwrap"
CODE_MOUNT = "/playground-code"  # the staged playground package, read-only
JOB_MOUNT = "/job"  # the job's source file, read-only
# No user namespace may be made inside: a job gets no fresh set of capabilities to reach kernel
# code with (bwrap 0.8; --disable-userns needs a user namespace of bwrap's own).
NO_NESTED_USERNS = ("--unshare-user", "--disable-userns")


@functools.cache
def probe(uid: int | None) -> str:
    """'' when bubblewrap can create every namespace as this uid, else why not (Docker's default
    seccomp profile, no user namespaces, no binary)."""
    if not os.path.exists(BWRAP):
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    # The cold worker's own namespace flags: a bwrap that cannot disable nested user
    # namespaces (older than 0.8, or a kernel without the per-namespace limit) is found here,
    # once, not by every job's worker failing to start.
    argv = [BWRAP, "--unshare-all", *NO_NESTED_USERNS, "--die-with-parent", *system_mounts(), "true"]
    try:
        done = subprocess.run(argv, env={}, capture_output=True, timeout=20, **as_user(uid))
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap failed to start: {e}"
    if done.returncode != 0:
        return (
            "bubblewrap cannot create namespaces here: " + done.stderr.decode(errors="replace").strip()[:200]
        )
    return ""


def as_user(uid: int | None) -> dict:
    """Popen arguments that drop to uid (and its same-numbered group), or nothing."""
    return {} if uid is None else {"user": uid, "group": uid, "extra_groups": []}


def system_mounts() -> list[str]:
    """Read-only /usr and what the dynamic loader needs; merged-/usr links stay links."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives"):
        args += ["--ro-bind-try", name, name]
    return args


def argv(
    command: list[str],
    env: dict[str, str],
    *,
    prefix: str | None,
    code_dir: str,
    job_dir: str,
    tmp_mb: int,
    nested_userns: bool = False,
) -> list[str]:
    """No network (loopback included), private size-capped /tmp, new PID namespace, read-only
    everything else. bwrap itself gets an empty environment (its PID 1 environ is readable).
    No user namespace may be made inside (--disable-userns: a job gets no fresh set of
    capabilities to reach kernel code with), except for a zygote (`nested_userns`), whose
    forks make their own namespaces and then forbid nesting themselves (namespaces.py)."""
    userns = [] if nested_userns else list(NO_NESTED_USERNS)
    args = [
        BWRAP,
        "--unshare-all",
        *userns,
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--hostname",
        "playground",
        *system_mounts(),
        # A small /dev/shm of its own; a zygote's forks each mount a fresh one over it.
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(1 << 20),
        "--tmpfs",
        "/dev/shm",
        "--size",
        str(tmp_mb << 20),
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        code_dir,
        CODE_MOUNT,
        "--ro-bind",
        job_dir,
        JOB_MOUNT,
        "--chdir",
        "/tmp",
    ]
    if prefix and not prefix.startswith("/usr/"):
        args += ["--ro-bind", prefix, prefix]
    for device in sorted(glob.glob("/dev/nvidia*")):  # GPU workers see the card, nothing else
        args += ["--dev-bind", device, device]
    # Last, after the device binds (which create their mount points): bubblewrap's root and
    # /dev are tmpfs mounts that a zygote's forks would share, so no job may write to them.
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    for name, value in sorted(env.items()):
        args += ["--setenv", name, value]
    return args + ["--", *command]
