"""Records real tf.autograph.to_code output for the code-diff unit tests (imports TF; run outside Streamlit)."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))

from record import SQUARE  # noqa: E402  (the same square_sum the UI tests replay)

SOURCES = {
    "square_sum": SQUARE,
    "branch": """import tensorflow as tf

@tf.function
def branch(x, factor):
    # scale only when asked
    if factor > 1:
        x = x * factor
    else:
        x = x - 1.0
    return tf.reduce_sum(x)
""",
    "countdown": """import tensorflow as tf

def helper(v):
    return v * 2.0

@tf.function
def countdown(x):
    i = tf.constant(3)
    total = tf.zeros_like(x)
    while i > 0:
        total = total + helper(x)
        i -= 1
    print("tracing", x.shape)
    return total
""",
    "python_loop": """import tensorflow as tf

@tf.function
def python_loop(x):
    acc = x
    for k in range(3):
        acc = acc + k
    return acc
""",
}


def load(name: str, source: str):  # type: ignore[no-untyped-def]
    path = pathlib.Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return getattr(module, name)


if __name__ == "__main__":
    import tensorflow as tf

    out = {}
    for name, source in SOURCES.items():
        fn = load(name, source)
        out[name] = {
            "source": source,
            "function": name,
            "tensorflow_version": tf.__version__,
            "converted": tf.autograph.to_code(fn.python_function),
        }
    (HERE / "to_code.json").write_text(json.dumps(out, indent=1) + "\n")
    print("recorded", ", ".join(out))
