"""What a file sees of the process it runs in: it must be plain Python's, never the engine's.
Run as a script (`python plain_python_state.py`) and as an imported module whose entry()
runs under tf.function; every line printed must match the playground's, in both modes."""

import ctypes
import logging
import os
import sys
import warnings

import tensorflow as tf

tf.config.threading.set_inter_op_parallelism_threads(3)  # the runtime is still the file's


def depth(n=0):
    try:
        return depth(n + 1)
    except RecursionError:
        return n


def annotated(x: int, y: "float" = 1.0) -> list:
    return [x]


@tf.autograph.experimental.do_not_convert
def engine_on_path():
    """Whether sys.path or PYTHONPATH names the directory of the playground's own code."""
    entries = sys.path + os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return any(os.path.isdir(os.path.join(p or ".", "playground", "engine")) for p in entries)


def report(where):
    print(where, "annotations", annotated.__annotations__)
    print(where, "globals", sorted(k for k in globals() if k.startswith("__") and k != "__annotations__"))
    print(where, "engine on the path", engine_on_path())
    print(
        where,
        "tf logger",
        [type(h).__name__ for h in tf.get_logger().handlers],
        tf.get_logger().filters,
        tf.get_logger().level,
        tf.get_logger().propagate,
    )
    print(where, "root logger", logging.getLogger().handlers, logging.getLogger().level)
    print(where, "warning filters", len(warnings.filters))
    print(where, "recursion limit", sys.getrecursionlimit())
    print(where, "inter-op threads", tf.config.threading.get_inter_op_parallelism_threads())
    print(where, "stdout", sys.stdout.encoding)
    libc = ctypes.CDLL(None)
    libc.printf(b"%s printed from C, between two Python lines\n", where.encode())
    print(where, "after C")


report("module")
print("module depth", depth())


def entry():
    report("entry")
    print("entry depth", depth())
    return tf.constant(0)


if __name__ == "__main__":
    print("main block")
    tf.function(entry)()
