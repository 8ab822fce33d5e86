"""The kernel surface a job can reach, on every worker path (cold, forked, process fallback): no
nested user namespace, no keyring, no inotify or fanotify (sandbox/seccomp.py, bwrap
--disable-userns, namespaces.forbid_user_namespaces), and a worker that cannot filter runs no job.
"""

from __future__ import annotations

import ctypes
import dataclasses
import errno
import json
import os
import platform
import re
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable

import pytest
import repo_paths
from sandbox_support import SETTINGS

from playground.contract.job import Job, job_to_json
from playground.sandbox import WorkerPool, bwrap, seccomp
from playground.sandbox import limits as rlimits

MACHINE = platform.machine()
CALLS = seccomp.numbers()
KEYCTL_GET_KEYRING_ID, KEYCTL_UNLINK, KEYCTL_SEARCH, KEYCTL_READ = 0, 9, 10, 11
KEY_SPEC_SESSION_KEYRING = -3
CLONE_NEWUSER = 0x10000000
REPO = str(repo_paths.ROOT)
HEADERS = {
    "x86_64": "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
    "aarch64": "/usr/include/asm-generic/unistd.h",
}
needs_filter = pytest.mark.skipif(not CALLS, reason=f"no seccomp filter for {MACHINE}")
_libc = ctypes.CDLL(None, use_errno=True)


def syscall(number: int, *args: object) -> str:
    """'ok' or the errno name: how one raw system call ended."""
    result = _libc.syscall(
        ctypes.c_long(number),
        *[a if isinstance(a, (bytes, type(None), ctypes.Array)) else ctypes.c_long(a) for a in args],
    )
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]


def in_child(body: Callable[[], dict]) -> tuple[dict, int]:
    """body() in a forked child of the test (no bubblewrap): its answer and its wait status."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(read)
            os.write(write, json.dumps(body()).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    _, status = os.waitpid(child, 0)
    return (json.loads(data) if data else {}), status


@pytest.fixture(scope="module")
def server_secret():
    """A secret in this process's session keyring, as the server's login session would hold
    one (`keyctl add user ... @s`): its description, serial and value, or why there is none;
    unlinked afterwards. Made before any pool: a process without a session keyring gets one on
    this first use, and only workers started after that share it (a login session has one
    from the start, so every worker of a server started from it does)."""
    if not CALLS:
        yield f"no seccomp filter for {MACHINE}"
        return
    description = f"playground-server-secret-{uuid.uuid4().hex[:8]}"
    secret = f"keyring-secret-{uuid.uuid4().hex}".encode()
    key = _libc.syscall(
        ctypes.c_long(CALLS["add_key"]),
        b"user",
        description.encode(),
        secret,
        ctypes.c_long(len(secret)),
        ctypes.c_long(KEY_SPEC_SESSION_KEYRING),
    )
    if key < 0:
        yield (
            f"this machine refuses add_key to the test's own session keyring "
            f"({errno.errorcode[ctypes.get_errno()]}), so there is no secret to guard"
        )
        return
    yield description, key, secret
    syscall(CALLS["keyctl"], KEYCTL_UNLINK, key, KEY_SPEC_SESSION_KEYRING)


@pytest.fixture
def host_key(server_secret):
    if isinstance(server_secret, str):
        pytest.skip(server_secret)
    return server_secret


def read_key(key: int) -> str:
    buffer = ctypes.create_string_buffer(256)
    outcome = syscall(CALLS["keyctl"], KEYCTL_READ, key, buffer, 256)
    return buffer.value.decode() if outcome == "ok" else outcome


# ---- the filter itself, in a forked child of the test ------------------------------------


@pytest.mark.parametrize("machine", sorted(HEADERS))
def test_the_call_numbers_are_the_kernels(machine):
    """A wrong number refuses some other call and lets the meant one through: each table is
    checked against the kernel's own (aarch64 uses the generic table)."""
    if not os.path.exists(HEADERS[machine]):
        pytest.skip(f"{HEADERS[machine]} is not installed (linux-libc-dev)")
    with open(HEADERS[machine]) as handle:
        text = handle.read()
    kernel = {name: int(number) for name, number in re.findall(r"#define __NR_(\w+)\s+(\d+)\b", text)}
    # The generic table names some calls by their 32/64-bit pair: __NR_fcntl __NR3264_fcntl.
    pairs = {name: int(number) for name, number in re.findall(r"#define __NR3264_(\w+)\s+(\d+)\b", text)}
    for name, pair in re.findall(r"#define __NR_(\w+)\s+__NR3264_(\w+)\b", text):
        if pair in pairs:
            kernel.setdefault(name, pairs[pair])
    table = seccomp.TABLES[machine]
    assert {name: table[name] for name in table} == {name: kernel.get(name) for name in table}
    assert set(seccomp.REFUSED) - set(table) <= {n for n in seccomp.REFUSED if n not in kernel}


@needs_filter
def test_the_filter_refuses_its_calls_on_every_thread_and_allows_the_rest(host_key):
    """Before the filter the child reads the key and makes an inotify instance; after it every
    listed call, from the main thread and from a thread started before the filter (TSYNC),
    gets EPERM, while ordinary calls still work. Invalid arguments (-1) keep each call harmless
    should the filter let it through; the shared-object calls' EPERM is the filter's, as the
    same calls before it show."""
    description, key, secret = host_key

    def body() -> dict:
        answer = {
            "before_read": read_key(key),
            "before_inotify": syscall(CALLS["inotify_init1"], 0),
            "before": {name: syscall(nr, -1, -1, -1, -1, -1) for name, nr in CALLS.items()},
        }
        go, done = threading.Event(), {}

        def early() -> None:  # started before the filter, as TF's pools are
            go.wait()
            done["read"] = read_key(key)
            done["inotify"] = syscall(CALLS["inotify_init1"], 0)

        thread = threading.Thread(target=early)
        thread.start()
        started = time.perf_counter()
        seccomp.install()
        answer["install_ms"] = (time.perf_counter() - started) * 1000
        go.set()
        thread.join()
        answer["early_thread"] = done
        answer["after"] = {name: syscall(nr, -1, -1, -1, -1, -1) for name, nr in CALLS.items()}
        answer["after_read"] = read_key(key)
        with open("/proc/self/status") as status:
            answer["status"] = dict(line.split(":\t", 1) for line in status if ":\t" in line)
        answer["getpid"] = _libc.getpid() == os.getpid()
        with open(os.__file__) as handle:
            answer["reads_files"] = len(handle.read(100)) == 100
        answer["new_thread"] = []
        late = threading.Thread(
            target=lambda: answer["new_thread"].append(
                syscall(CALLS["keyctl"], KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
            )
        )
        late.start()
        late.join()
        return answer

    answer, status = in_child(body)
    assert os.WIFEXITED(status), status
    assert answer["before_read"] == secret.decode() and answer["before_inotify"] == "ok"
    shared = ("keyctl", "add_key", "request_key", "inotify_init", "inotify_init1", "fanotify_init")
    assert not [n for n in shared if answer["before"].get(n) == "EPERM"], answer["before"]
    assert answer["after"] == {name: "EPERM" for name in CALLS}, answer["after"]
    assert answer["after_read"] == "EPERM"
    assert answer["early_thread"] == {"read": "EPERM", "inotify": "EPERM"}
    assert answer["new_thread"] == ["EPERM"]
    assert answer["status"]["Seccomp"].strip() == "2" and answer["status"]["NoNewPrivs"].strip() == "1"
    assert answer["getpid"] and answer["reads_files"]
    print(f"measured: seccomp.install() took {answer['install_ms']:.2f} ms (2 threads)")


@pytest.mark.skipif(MACHINE != "x86_64", reason="x32 calls exist on x86_64 only")
def test_a_call_of_another_abi_kills_the_process():
    """An x32 call (nr | 0x40000000) would reach the x32 table, where the listed numbers do not
    hold: the filter kills instead. Unfiltered, the same call just returns."""
    getpid_x32 = seccomp.X32_BIT | 39

    def plain() -> dict:
        return {"x32": syscall(getpid_x32)}

    def filtered() -> dict:
        seccomp.install()
        return {"x32": syscall(getpid_x32)}

    answer, status = in_child(plain)
    assert os.WIFEXITED(status) and "x32" in answer
    answer, status = in_child(filtered)
    assert answer == {} and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS


def test_the_probe_asks_bubblewrap_for_what_a_cold_worker_gets(monkeypatch):
    """A bwrap that cannot disable nested user namespaces must fail the probe (once, with its
    reason), not every cold worker's start. The zygote alone keeps them: its forks make their
    own namespaces and forbid nesting themselves (tested on the forked pool below)."""
    if not os.path.exists(bwrap.BWRAP):
        pytest.skip("bubblewrap is not installed")
    seen: list[list[str]] = []

    def run(argv, **kwargs):
        seen.append(argv)
        return subprocess.CompletedProcess(argv, 0, b"", b"")

    monkeypatch.setattr(bwrap.subprocess, "run", run)
    assert bwrap.probe.__wrapped__(None) == ""
    cold = bwrap.argv(["true"], {}, prefix=None, code_dir="/c", job_dir="/j", tmp_mb=8)
    zygote = bwrap.argv(["true"], {}, prefix=None, code_dir="/c", job_dir="/j", tmp_mb=8, nested_userns=True)

    def userns_flags(argv: list[str]) -> list[str]:
        return [a for a in argv[: argv.index("--die-with-parent")] if "user" in a]

    assert userns_flags(seen[0]) == userns_flags(cold) == ["--unshare-user", "--disable-userns"]
    assert userns_flags(zygote) == []


# ---- the real sandbox: a cold pool, a forked pool, the process fallback ------------------

PROBE = """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
CALLS = {calls!r}
def attempt(label, name, *args):
    args = [a if isinstance(a, (bytes, type(None), ctypes.Array)) else ctypes.c_long(a) for a in args]
    result = libc.syscall(ctypes.c_long(CALLS[name]), *args)
    print(label, "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()])
read, write = os.pipe()
if os.fork() == 0:       # single-threaded, as unshare(CLONE_NEWUSER) requires; TF's are not
    done = libc.unshare(0x10000000)
    os.write(write, b"ok" if done == 0 else errno.errorcode[ctypes.get_errno()].encode())
    os._exit(0)
os.wait()
print("unshare_user", os.read(read, 64).decode())
buffer = ctypes.create_string_buffer(256)
attempt("read_server_key", "keyctl", 11, {key}, buffer, 256)           # KEYCTL_READ
print("buffer", buffer.value.decode(errors="replace") or "-")
attempt("search_session", "keyctl", 10, -3, b"user", b"{description}", 0)
attempt("session_keyring", "keyctl", 0, -3, 0)                         # @s's serial
attempt("leave_a_key", "add_key", b"user", b"{left}", b"x", 1, -3)
attempt("request_key", "request_key", b"user", b"{description}", None, 0)
attempt("inotify_init1", "inotify_init1", 0)
if "inotify_init" in CALLS:
    attempt("inotify_init", "inotify_init")
attempt("fanotify_init", "fanotify_init", 0, 0)
"""
REFUSED_IN_JOB = (
    "read_server_key",
    "search_session",
    "session_keyring",
    "leave_a_key",
    "request_key",
    "inotify_init1",
    "fanotify_init",
)


@pytest.fixture(scope="module", params=["cold", "forked", "process"])
def any_pool(request, server_secret):
    """One worker path each: a fresh bubblewrap worker per job (the CLI, fork off, GPU hosts),
    a worker forked from a zygote, and the process fallback."""
    path = request.param
    settings = dataclasses.replace(
        SETTINGS,
        pool_size=1,
        isolation="process" if path == "process" else "auto",
        fork_workers="on" if path == "forked" else "off",
    )
    with WorkerPool(settings) as pool:
        if path != "process" and pool.isolation != "bubblewrap":
            pytest.skip(f"the {path} path needs bubblewrap: {'; '.join(pool.config.notes)}")
        assert (pool._zygotes is not None) == (path == "forked")
        assert pool.wait_ready(), "the sandbox pool did not warm up"
        yield pool


@needs_filter
def test_a_job_reaches_no_keyring_no_inotify_and_no_nested_user_namespace(any_pool, host_key):
    description, key, secret = host_key
    left = f"left-by-a-job-{uuid.uuid4().hex[:8]}"
    source = PROBE.format(calls=CALLS, key=key, description=description, left=left)
    report = any_pool.submit(Job(source=source, timeout_s=30.0))
    assert report.status == "ok", (report.message, report.stdout)
    lines = dict(line.split(" ", 1) for line in report.stdout.splitlines() if " " in line)
    assert {name: lines.get(name) for name in REFUSED_IN_JOB} == {name: "EPERM" for name in REFUSED_IN_JOB}, (
        report.stdout
    )
    assert lines.get("inotify_init", "EPERM") == "EPERM" and lines["buffer"] == "-"
    if any_pool.isolation == "bubblewrap":  # the limit, not just TF's threads (EINVAL)
        assert lines["unshare_user"] == "ENOSPC", report.stdout
    # The secret is still there for the host, never in anything the job produced, and the job
    # left no key in the session keyring for a later visitor's job to read.
    assert read_key(key) == secret.decode()
    assert secret.decode() not in json.dumps(dataclasses.asdict(report))
    assert (
        syscall(CALLS["keyctl"], KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, b"user", left.encode(), 0)
        == "ENOKEY"
    )


def test_tensorflow_runs_under_the_filter_on_every_thread(any_pool):
    source = (
        "import os\nimport tensorflow as tf\n@tf.function\ndef f(x):\n    return x * 2\n"
        "print(f(tf.constant([1.0, 2.0])).numpy())\n"
        "def status(path):\n"
        "    return dict(l.split(':', 1) for l in open(path) if ':' in l)\n"
        "tasks = [status(f'/proc/self/task/{t}/status') for t in os.listdir('/proc/self/task')]\n"
        "print('threads', len(tasks), sorted({t['Seccomp'].strip() + t['NoNewPrivs'].strip()"
        " for t in tasks}))\n"
    )
    report = any_pool.submit(Job(source=source, timeout_s=30.0))
    assert report.status == "ok", report.message
    lines = report.stdout.splitlines()
    assert lines[0] == "[2. 4.]", report.stdout
    count, modes = lines[1].split(" ", 2)[1:]
    assert int(count) > 1 and modes == "['21']", report.stdout  # filter mode 2, no_new_privs 1


# ---- a worker that cannot install the filter --------------------------------------------

# Started as `python -c REFUSE_SECCOMP worker-argv...`: a filter that answers the seccomp() call
# with ENOSYS, as a kernel without seccomp filters does (prctl's PR_SET_SECCOMP installs it),
# then the worker itself. Not a preexec_fn: this test process has threads (a fork of it may
# hang in the dynamic loader before exec).
REFUSE_SECCOMP = """
import ctypes, os, struct, sys
number, allow, enosys = (int(a) for a in sys.argv[1:4])
ops = ((0x20, 0, 0, 0), (0x15, 1, 0, number), (0x06, 0, 0, allow), (0x06, 0, 0, enosys))
code = b"".join(struct.pack("=HBBI", *op) for op in ops)
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
buffer = ctypes.create_string_buffer(code, len(code))
prog = Prog(len(ops), ctypes.cast(buffer, ctypes.c_void_p))
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(prog), 0, 0):
    sys.exit("the test's own filter did not install: %d" % ctypes.get_errno())
os.execv(sys.executable, [sys.executable, *sys.argv[4:]])
"""


def _run_worker(job: Job, refuse: bool, tmp: str) -> list[dict]:
    """The real worker module as a plain process; its protocol messages until it exits."""
    read, write = os.pipe()
    limits = dict(rlimits.limits_of(SETTINGS), gpu_memory_mb=256)
    stderr = open(os.path.join(tmp, f"stderr-{refuse}"), "w+b")
    worker = ["-m", "playground.sandbox.worker", "--fd", str(write), "--limits", json.dumps(limits)]
    if refuse:
        worker = [
            "-c",
            REFUSE_SECCOMP,
            str(seccomp.TABLES[MACHINE]["seccomp"]),
            str(seccomp.RET_ALLOW),
            str(seccomp.RET_ERRNO | errno.ENOSYS),
            *worker,
        ]
    proc = subprocess.Popen(
        [sys.executable, *worker],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        pass_fds=(write,),
        env=rlimits.worker_env(REPO, tmp),
        cwd=tmp,
    )
    os.close(write)
    assert proc.stdin is not None
    proc.stdin.write((job_to_json(job) + "\n").encode())
    proc.stdin.close()
    data, deadline = b"", time.monotonic() + 180
    while time.monotonic() < deadline:
        ready, _, _ = select.select([read], [], [], deadline - time.monotonic())
        chunk = os.read(read, 1 << 16) if ready else b""
        if not chunk:
            break
        data += chunk
    os.close(read)
    proc.wait(30)
    stderr.seek(0)
    assert proc.returncode == 0, stderr.read()[-2000:]
    stderr.close()
    return [json.loads(line) for line in data.decode().splitlines()]


@needs_filter
def test_a_worker_that_cannot_filter_runs_no_job(tmp_path):
    """Fails closed: with seccomp() refused (ENOSYS), the worker says so and the job's first
    line never runs; the same worker and job without the refusal run it (the control)."""
    marker = tmp_path / "the-job-ran"
    job = Job(source=f"open({str(marker)!r}, 'w').write('ran')\nprint('ran')\n", timeout_s=30.0)

    refused = _run_worker(job, refuse=True, tmp=str(tmp_path))
    assert [m["event"] for m in refused] == ["ready", "crash"], refused
    crash = refused[-1]
    assert crash["type"] == "SandboxError"
    assert crash["message"].startswith(
        "The sandbox could not install its system call filter, so the job did not run:"
    ), crash
    assert "ENOSYS" in crash["message"]
    assert not marker.exists()

    control = _run_worker(job, refuse=False, tmp=str(tmp_path))
    assert [m["event"] for m in control][-1] == "report", control
    assert control[-1]["report"]["status"] == "ok" and marker.read_text() == "ran"
