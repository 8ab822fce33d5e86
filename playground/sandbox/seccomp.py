"""The worker's own seccomp filter: system calls no job needs, refused with EPERM on every path.

bubblewrap and the namespaces keep a job away from the host's files, network and processes, but
some kernel objects are shared by every process of the machine: the session keyring (keyctl,
add_key, request_key read a secret the server holds, or one an earlier job left), and inotify
and fanotify, which tell one job which files another job opens in the shared read-only tree.
Docker's default profile happens to block keyctl; a host run, the CLI and a GPU host have no
such profile, so the worker installs this filter itself, after the engine is warm and before
the job's code runs, on every thread (SECCOMP_FILTER_FLAG_TSYNC: TensorFlow's thread pools
exist already).

A classic BPF program built here with struct (no libseccomp binding is installed): check the
architecture (a foreign one, or x32 calls on x86_64, is killed), then refuse the listed calls.
"""
from __future__ import annotations

import ctypes
import errno
import platform
import struct

# Per architecture: the AUDIT_ARCH value, the seccomp() syscall number, and the refused calls.
ARCHES = {
    "x86_64": (0xC000003E, 317, {"keyctl": 250, "add_key": 248, "request_key": 249,
                                 "inotify_init": 253, "inotify_init1": 294,
                                 "fanotify_init": 300, "userfaultfd": 323,
                                 "perf_event_open": 298, "bpf": 321}),
    "aarch64": (0xC00000B7, 277, {"keyctl": 219, "add_key": 217, "request_key": 218,
                                  "inotify_init1": 26, "fanotify_init": 262,
                                  "userfaultfd": 282, "perf_event_open": 241, "bpf": 280}),
}
X32_BIT = 0x40000000

_LD_W_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_ALLOW, _KILL_PROCESS, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> tuple[bytes, int]:
    """The filter for this machine, as BPF bytes and its instruction count."""
    arch, _nr, refused = ARCHES[machine or platform.machine()]
    numbers = sorted(refused.values())
    ops = [_op(_LD_W_ABS, 4),                                  # seccomp_data.arch
           _op(_JEQ, arch, 1, 0), _op(_RET, _KILL_PROCESS),
           _op(_LD_W_ABS, 0)]                                  # seccomp_data.nr
    if arch == ARCHES["x86_64"][0]:
        ops += [_op(_JGE, X32_BIT, 0, 1), _op(_RET, _KILL_PROCESS)]
    for i, number in enumerate(numbers):                      # to the EPERM at the end
        ops.append(_op(_JEQ, number, len(numbers) - i, 0))
    ops += [_op(_RET, _ALLOW), _op(_RET, _ERRNO | errno.EPERM)]
    return b"".join(ops), len(ops)


def install() -> None:
    """Installs the filter on every thread of this process; raises OSError if it cannot (the
    worker then refuses the job: a sandbox that lost a wall does not run code)."""
    machine = platform.machine()
    if machine not in ARCHES:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {machine}")
    libc = ctypes.CDLL(None, use_errno=True)
    code, count = program(machine)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(count, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.syscall(ARCHES[machine][1], SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
                         ctypes.byref(prog)) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp filter not installed: {errno.errorcode.get(number)}")
