"""The kernel surface a job can reach, on every worker path (cold and forked): no nested user
namespace, no keyring, no inotify or fanotify (sandbox/seccomp.py, bwrap --disable-userns)."""
from __future__ import annotations

import ctypes
import dataclasses
import os
import platform

import pytest

from playground.contract.job import Job
from playground.sandbox import WorkerPool, seccomp

from sandbox_support import SETTINGS

NUMBERS = seccomp.ARCHES.get(platform.machine(), (0, 0, {}))[2]
UNSHARE = {"x86_64": 272, "aarch64": 97}.get(platform.machine(), 272)
SECRET = b"playground-keyring-secret"

# The job tries each call through libc's syscall(), and prints how it ended.
PROBE = f'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, number, *args):
    result = libc.syscall(number, *args)
    print(name, "ok" if result >= 0 else os.strerror(ctypes.get_errno()))
CALLS = {NUMBERS!r}
read, write = os.pipe()
child = os.fork()          # single-threaded, as unshare(CLONE_NEWUSER) requires; TF's are not
if child == 0:
    result = libc.syscall({UNSHARE}, 0x10000000)
    os.write(write, b"ok" if result == 0 else os.strerror(ctypes.get_errno()).encode())
    os._exit(0)
os.waitpid(child, 0)
print("unshare_user", os.read(read, 100).decode())
attempt("inotify_init1", CALLS["inotify_init1"], 0)
attempt("fanotify_init", CALLS["fanotify_init"], 0, 0)
attempt("keyctl", CALLS["keyctl"], 0, -3, 0)           # KEYCTL_GET_KEYRING_ID of @s
buffer = ctypes.create_string_buffer(256)
for key in range(1, 64):                               # KEYCTL_READ of any key it can name
    if libc.syscall(CALLS["keyctl"], 11, key, buffer, 256) > 0:
        print("read", buffer.value)
attempt("add_key", CALLS["add_key"], b"user", b"left-behind", b"x", 1, -3)
attempt("request_key", CALLS["request_key"], b"user", b"playground", None, 0)
'''


@pytest.fixture(scope="module", params=["cold", "forked"])
def any_pool(request):
    settings = dataclasses.replace(SETTINGS, pool_size=1,
                                   fork_workers="off" if request.param == "cold" else "on")
    with WorkerPool(settings) as pool:
        assert pool.wait_ready(), "the sandbox pool did not warm up"
        yield pool


def host_key() -> int:
    """A secret in this process's session keyring, as the server's login session would hold."""
    libc = ctypes.CDLL(None, use_errno=True)
    key = libc.syscall(NUMBERS["add_key"], b"user", b"playground-server-secret", SECRET,
                       len(SECRET), -3)
    if key < 0:
        pytest.skip(f"the host cannot add a key here ({os.strerror(ctypes.get_errno())})")
    return key


@pytest.mark.skipif(not NUMBERS, reason=f"no seccomp filter for {platform.machine()}")
def test_a_job_reaches_no_keyring_no_inotify_and_no_nested_user_namespace(any_pool):
    host_key()
    report = any_pool.submit(Job(source=PROBE))
    lines = dict(line.split(" ", 1) for line in report.stdout.splitlines() if " " in line)
    assert report.status == "ok", report.message
    for call in ("inotify_init1", "fanotify_init", "keyctl", "add_key", "request_key"):
        assert lines[call] == "Operation not permitted", (call, report.stdout)
    if any_pool.isolation == "bubblewrap":
        assert lines["unshare_user"] != "ok", report.stdout
    assert "read" not in lines and SECRET.decode() not in report.stdout


def test_tensorflow_runs_under_the_filter(any_pool):
    source = ("import tensorflow as tf\n@tf.function\ndef f(x):\n    return x * 2\n"
              "print(f(tf.constant([1.0, 2.0])).numpy())\n")
    report = any_pool.submit(Job(source=source))
    assert report.status == "ok" and report.stdout.strip() == "[2. 4.]", report.message


def test_the_filter_refuses_its_calls_and_allows_the_rest():
    """The BPF program itself, in a forked child of the test: no bubblewrap involved."""
    if platform.machine() not in seccomp.ARCHES:
        pytest.skip(f"no seccomp filter for {platform.machine()}")
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            seccomp.install()
            libc = ctypes.CDLL(None, use_errno=True)
            refused = libc.syscall(NUMBERS["inotify_init1"], 0) < 0 and \
                ctypes.get_errno() == 1
            os.write(write, b"%d %d" % (refused, os.getpid() > 0 and os.path.isdir("/")))
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    assert os.read(read, 16) == b"1 1"

