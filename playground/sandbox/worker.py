"""The worker process: imports TF while warm, then runs exactly one job and reports on a pipe.
Started fresh (python -m playground.sandbox.worker) or forked from a zygote (zygote.py).

Protocol: JSON lines on the fd given by --fd (never stdout, which user code owns):
{"event": "ready"} once warm, engine events while the job runs, then {"event": "report", ...}.
The job arrives as one JSON line on stdin, which is then closed.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import traceback

from . import source_lookup


class Channel:
    """Writes whole lines to the protocol fd; a fork of the user's code stays silent."""

    def __init__(self, fd: int) -> None:
        self.fd, self.pid = fd, os.getpid()

    def send(self, message: dict) -> None:
        if os.getpid() != self.pid:
            return
        data = (json.dumps(message) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except OSError:
            pass  # the user closed our fd, or the parent is gone: nothing to tell


@functools.cache  # a fork of a warm zygote asks again: it gets the zygote's answer
def warm_up() -> list:
    """Pays AutoGraph's first conversion, the kernel registry's set-up and the physical
    devices' listing before the job arrives, and indexes the loaded modules for AutoGraph's
    source lookup (source_lookup.py); returns the GPUs. Nothing here may run an op or trace a
    function: either initializes TF's eager context, after which a script can no longer
    configure the runtime (threads, devices, placement) as it can under plain Python. A zygote
    calls it before it forks (it has no GPU: CUDA does not survive a fork), so each fork finds
    all of it done, and its answer, and pays nothing (converting again would cost a fork 1.5 ms)."""
    import tensorflow as tf

    from playground.engine import device

    def inc(x):
        if x > 0:
            x = x + 1
        return x

    tf.autograph.to_code(inc)
    set_up_kernel_registry()
    source_lookup.install()
    return device.gpus()


def set_up_kernel_registry() -> None:
    """TF's kernel registry finishes setting itself up at its first lookup: it takes out every
    JIT kernel and puts it back without its label (SetupOrDisableJit, op_kernel.cc), rewriting
    a table of some ten thousand entries. Done in each fork, it made a sandboxed job's first op
    cost 24 ms instead of 20; here it costs 3.5 ms once. It reads only TF_DISABLE_JIT_KERNELS,
    and runs no op."""
    try:
        from tensorflow.python.framework import kernels

        kernels.get_registered_kernels_for_op("Const")
    except (ImportError, AttributeError):  # a private module: a version without it pays in each fork
        pass


def pid_namespace() -> int:
    """The inode of this process's PID namespace: the host finds a job's leftovers by it."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="playground.sandbox.worker")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--limits", required=True, help="JSON, see limits.limits_of")
    args = parser.parse_args(argv)
    serve(Channel(args.fd), json.loads(args.limits))


def import_engine() -> None:
    """The expensive part of a worker's life: a fresh worker pays it, a zygote pays it once."""
    import tensorflow  # noqa: F401

    import playground.engine.pipeline
    import playground.sandbox.exports  # noqa: F401


def _leave_the_script_alone() -> None:
    """What started the worker is not the script's: under `python file.py` neither sys.path
    nor PYTHONPATH names the playground's code. The engine's modules are imported already, and
    a package finds its submodules through its own __path__, not sys.path."""
    code_dir = os.environ.pop("PYTHONPATH", None)
    if code_dir:
        sys.path[:] = [p for p in sys.path if p != code_dir]


def filter_system_calls(language: str) -> None:
    """The worker's own seccomp filter (seccomp.py) on all its threads, on every path (cold,
    forked, GPU, process fallback). Fails closed: a worker that cannot install it runs no job,
    and the report says why in the job's language."""
    from playground.contract import i18n
    from playground.contract.errors import SandboxError
    from playground.contract.i18n import _
    from playground.sandbox import seccomp

    try:
        seccomp.install()
    except OSError as error:
        with i18n.using(language):
            raise SandboxError(
                _(
                    "The sandbox could not install its system call filter, so the job did not run: {error}"
                ).format(error=error)
            ) from None


def serve(channel: Channel, limits: dict) -> None:
    """Warm up, say ready, run the one job that arrives on stdin, report it, exit. A forked
    worker enters here too, after the fork: CUDA and TF's thread pools start in the worker."""
    import_engine()

    from playground.contract.job import job_from_json, to_dict
    from playground.contract.protocol import Crash, Ready, as_event
    from playground.engine import device, xla
    from playground.engine.pipeline import analyze
    from playground.sandbox import exports
    from playground.sandbox import limits as rlimits

    gpus = warm_up()  # a fork's costs nothing: its zygote did it, and kept the answer
    if gpus:
        device.share_gpu_memory(int(limits.get("gpu_memory_mb", 2048)), gpus)
    _leave_the_script_alone()
    channel.send(as_event(Ready(os.getpid(), len(gpus), pid_namespace())))

    line = sys.stdin.readline()
    if not line:
        os._exit(0)  # the pool closed without giving us a job
    job = job_from_json(line)
    if job.passes:
        xla.dump_passes()  # before the job's first XLA compile: XLA reads its flags once
    rlimits.apply(limits, gpu=bool(gpus))
    try:
        filter_system_calls(job.language)  # last, on every path: the job's code runs next
        report = analyze(job, channel.send)
        if report.export is not None and report.export.path and job.verify is None:
            exports.send_files(report.export.path, channel.send)
        message = {"event": "report", "report": to_dict(report)}
    except BaseException as e:  # noqa: BLE001 - whatever happened, the parent must hear of it
        message = as_event(Crash(type(e).__name__, str(e)[:2000], traceback.format_exc()[-4000:]))
    if os.getpid() == channel.pid:
        channel.send(message)
    os._exit(0)  # skip TF teardown; the process is discarded anyway


if __name__ == "__main__":
    main()
