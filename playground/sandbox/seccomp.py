"""The worker's own seccomp filter: system calls no job needs, refused with EPERM on every path.

bubblewrap and the namespaces keep a job away from the host's files, network and processes, but
some kernel objects are shared by every process of the machine: the session keyring (keyctl,
add_key, request_key read a secret the server holds, or one an earlier job left), and inotify
and fanotify, which tell one job which files another job opens in the shared read-only tree.
Docker's default profile happens to block keyctl; a host run, the CLI and a GPU host have no
such profile, so the worker installs this filter itself, after the engine is warm and before
the job's code runs, on every thread (SECCOMP_FILTER_FLAG_TSYNC: TensorFlow's thread pools
exist already). Filters stack: inside Docker this one runs after the container's profile.

A classic BPF program built here with struct (no libseccomp binding is installed): check the
architecture (a foreign one, i386 or arm32 compat calls, or x32 calls on x86_64, kill the
process), then refuse the listed calls. Nested user namespaces are not this filter's business:
bwrap --disable-userns and namespaces.forbid_user_namespaces refuse them.

A kernel without seccomp filters (CONFIG_SECCOMP_FILTER, Linux 3.17 for TSYNC) or an
architecture without a table here gets OSError from install(): the worker then runs no job.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

# What a job may not call, and why; every name must be in each table below.
REFUSED = (
    # Kernel objects shared with the server and with other jobs (see the module docstring).
    "keyctl",
    "add_key",
    "request_key",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
    # Locks are shared too: two jobs passed 24 of 24 bits through flock on the read-only tree
    # they share. fcntl's own locks (and dnotify) are refused by command (FCNTL_REFUSED).
    "flock",
    # Kernel code no job needs, and a frequent home of kernel bugs: eBPF, perf counters,
    # userfaultfd (races in exploits), io_uring.
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # Another process's memory: a job's children are its own, but it has no reason to.
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    # Mounts and kexec need capabilities a job never holds; refused before the kernel parses.
    "mount",
    "umount2",
    "pivot_root",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "kexec_load",
    "kexec_file_load",
)

# From the kernel's own tables (asm/unistd_64.h; asm-generic/unistd.h for aarch64); a test
# compares them with the installed headers. i386's int 0x80 and arm32 compat calls carry
# another AUDIT_ARCH and are killed by the arch check, so they need no table.
_X86_64 = {
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "inotify_init": 253,
    "inotify_init1": 294,
    "fanotify_init": 300,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "seccomp": 317,
    "flock": 73,
    "fcntl": 72,
}
_AARCH64 = {  # no inotify_init: the generic table has only inotify_init1
    "keyctl": 219,
    "add_key": 217,
    "request_key": 218,
    "inotify_init1": 26,
    "fanotify_init": 262,
    "bpf": 280,
    "perf_event_open": 241,
    "userfaultfd": 282,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "ptrace": 117,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "mount": 40,
    "umount2": 39,
    "pivot_root": 41,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "kexec_load": 104,
    "kexec_file_load": 294,
    "seccomp": 277,
    "flock": 32,
    "fcntl": 25,
}
# fcntl commands that set a lock another process can see, or watch a directory for another's
# changes: F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW, F_NOTIFY. Locks a job cannot set, it
# cannot read either. (Libraries that lock their own files, HDF5's, are told not to: limits.py.)
FCNTL_REFUSED = (6, 7, 37, 38, 1026)
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
TABLES = {"x86_64": _X86_64, "aarch64": _AARCH64}
X32_BIT = 0x40000000  # __X32_SYSCALL_BIT: x32 calls arrive as x86_64 with it

# BPF opcodes: BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_JMP|BPF_JGE|BPF_K, BPF_RET|BPF_K
_LD_W_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_NR, _ARCH, _ARG1 = 0, 4, 24  # offsets in struct seccomp_data (args[1]'s low word, little-endian)
RET_ALLOW, RET_KILL_PROCESS, RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1


class _Program(ctypes.Structure):  # struct sock_fprog
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)  # struct sock_filter, 8 bytes


def numbers(machine: str | None = None) -> dict[str, int]:
    """The refused calls' numbers on this architecture ({} where there is no table)."""
    table = TABLES.get(machine or platform.machine(), {})
    return {name: table[name] for name in REFUSED if name in table}


def program(machine: str | None = None) -> bytes:
    """The filter for an architecture, as struct sock_filter instructions."""
    machine = machine or platform.machine()
    refused = sorted(set(numbers(machine).values()))
    ops = [
        _op(_LD_W_ABS, _ARCH),
        _op(_JEQ, AUDIT_ARCH[machine], 1, 0),
        _op(_RET, RET_KILL_PROCESS),
        _op(_LD_W_ABS, _NR),
    ]
    if machine == "x86_64":
        ops += [_op(_JGE, X32_BIT, 0, 1), _op(_RET, RET_KILL_PROCESS)]
    # Then: each refused call jumps to the EPERM at the end; fcntl goes on to its command
    # (args[1]; the kernel reads it as an unsigned int, so its low word is all of it); any
    # other call jumps to the ALLOW before the EPERM. Jumps count the instructions skipped.
    n, m = len(refused), len(FCNTL_REFUSED)
    for i, number in enumerate(refused):
        ops.append(_op(_JEQ, number, n - i + m + 2, 0))
    ops += [_op(_JEQ, TABLES[machine]["fcntl"], 0, m + 1), _op(_LD_W_ABS, _ARG1)]
    for j, command in enumerate(FCNTL_REFUSED):
        ops.append(_op(_JEQ, command, m - j, 0))
    ops += [_op(_RET, RET_ALLOW), _op(_RET, RET_ERRNO | errno.EPERM)]
    return b"".join(ops)


def install(machine: str | None = None) -> None:
    """Installs the filter on every thread of this process, for good. Raises OSError if it
    cannot: the caller must then run no job (a sandbox that lost a wall runs no code)."""
    machine = machine or platform.machine()
    if machine not in TABLES:
        raise OSError(errno.ENOSYS, f"no seccomp filter for the {machine} architecture")
    code = program(machine)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if (
        libc.prctl(
            PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)
        )
        != 0
    ):
        _fail(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    result = libc.syscall(
        ctypes.c_long(TABLES[machine]["seccomp"]),
        ctypes.c_ulong(SECCOMP_SET_MODE_FILTER),
        ctypes.c_ulong(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(prog),
    )
    if result > 0:  # TSYNC names the first thread that could not take the filter
        raise OSError(errno.EBUSY, f"seccomp: thread {result} could not take the filter")
    if result < 0:  # ENOSYS or EINVAL: a kernel without seccomp filters (or TSYNC)
        _fail(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER, TSYNC)")


def _fail(number: int, what: str) -> None:
    raise OSError(number, f"{what}: {errno.errorcode.get(number, number)}")
