"""Jupyter notebooks in and out: a run as a notebook in plain TensorFlow, and a notebook's code.

Pure (no Streamlit, no TensorFlow): the notebook is text that imports TensorFlow when someone
runs it. `build` reproduces a Job: the code, the call plan as real calls on the same
deterministic tensors the sandbox makes (playground/engine/values.py), the tracing count after
each call, the converted code, and a timeit cell when timing was on. `code_of` reads a `.py` or
`.ipynb` file back into editor text, dropping what plain Python cannot run.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass, field

import nbformat
from nbformat import v4

from ..contract import seeded
from ..contract.i18n import _
from ..contract.job import Job, Report
from ..contract.specs import CallSpec, FromCode, PyValue, TensorSpec, TensorValue, parse_call, parse_signature
from .safe_text import code_span, markdown_literal

# The engine's own function, so a notebook's calls see the tensors the playground's calls saw.
MAKE_TENSOR = re.sub(
    r"def make_tensor\(.*?\) -> Any:",
    "def make_tensor(dtype, shape, seed, uniform=None, normal=None):",
    inspect.getsource(seeded.make_tensor),
    count=1,
    flags=re.S,
)

MAX_NOTEBOOK_BYTES = 4 << 20  # a notebook opened into the editor; outputs make them big


def _arg(arg: object, seed: int) -> str:
    if isinstance(arg, TensorSpec):
        return _tensor(arg, seed)
    if isinstance(arg, TensorValue):
        return arg.expression()
    if isinstance(arg, FromCode):  # the notebook runs the same code: its function is defined
        return str(arg)
    assert isinstance(arg, PyValue)
    return repr(arg.value)


def _tensor(spec: TensorSpec, seed: int) -> str:
    """The engine's tensor in plain TensorFlow (engine/values.py makes it the same way)."""
    made, dtype, shape = spec.values, spec.dtype, tuple(spec.shape)
    if made is None:
        return f"make_tensor({dtype!r}, {shape!r}, seed={seed})"
    if made.random:
        seed = seed if made.seed is None else made.seed
        return f"make_tensor({dtype!r}, {shape!r}, seed={seed}, {made.kind}={tuple(made.numbers)!r})"
    if made.kind in ("ones", "zeros"):
        return f"tf.{made.kind}({shape!r}, tf.{dtype})"
    if made.kind == "fill":
        return f"tf.fill({shape!r}, tf.constant({made.numbers[0]!r}, tf.{dtype}))"
    if made.kind == "range":
        return f"tf.range({', '.join(map(repr, made.numbers))}, dtype=tf.{dtype})"
    rows, columns = made.numbers
    return f"tf.eye({rows!r}, {columns!r}, dtype=tf.{dtype})"


def call_expression(call: CallSpec, index: int, name: str = "f") -> str:
    """`f(make_tensor("float32", (3,), seed=0), n=2)`: the seeds the engine uses for call `index`."""
    return f"{name}({', '.join(_call_parts(call, index))})"


def _call_parts(call: CallSpec, index: int) -> list[str]:
    seed = 1000 * index
    parts = [_arg(a, seed + i) for i, a in enumerate(call.args)]
    return parts + [f"{k}={_arg(v, seed + 100 + i)}" for i, (k, v) in enumerate(call.kwargs)]


def _signature(text: str) -> str:
    specs = parse_signature(text)
    items = ", ".join(f"tf.TensorSpec({tuple(s.shape)!r}, tf.{s.dtype})" for s in specs)
    return f"[{items}]"


def _function_cell(job: Job) -> str:
    options = []
    if job.signature:
        options.append(f"input_signature={_signature(job.signature)}")
    if job.reduce_retracing:
        options.append("reduce_retracing=True")
    if job.jit_compile:
        options.append("jit_compile=True")
    lines = [f"entry = {job.function}"]
    if options:
        lines.append("# The playground's options, on the plain Python function under any @tf.function.")
        lines.append(f"f = tf.function(getattr(entry, 'python_function', entry), {', '.join(options)})")
    else:
        lines.append("# An existing @tf.function is used as it is; a plain function is wrapped.")
        lines.append("f = entry if hasattr(entry, 'python_function') else tf.function(entry)")
    return "\n".join(lines)


def _recorded(report: Report | None, job: Job) -> dict[int, int]:
    """Call index -> the tracing count the playground saw, for the entry function. A report is
    a worker's word: what is not a whole number is left out, never written into a cell."""
    if report is None:
        return {}
    for function in report.functions:
        if job.function and function.name in (job.function, job.function.split(".")[-1]):
            counts = {}
            for c in function.calls:
                try:
                    counts[int(c.index)] = int(c.tracing_count)
                except (TypeError, ValueError, OverflowError):
                    continue
            return counts
    return {}


def _comment(text: str) -> str:
    """`text` for the rest of a comment line: as it is when it is all printable, else its repr
    (no line break of any kind, IPython's included, can end the comment)."""
    return text if text.isprintable() else repr(text)


def _timing_cell(call: CallSpec, index: int, jit: bool) -> str:
    seed = 1000 * index
    args = [_arg(a, seed + i) for i, a in enumerate(call.args)]
    kwargs = [f"{k!r}: {_arg(v, seed + 100 + i)}" for i, (k, v) in enumerate(call.kwargs)]
    lines = [
        "import timeit",
        "",
        "# The last call of the plan, timed eager (the plain Python function) and as a graph.",
        "# Its inputs are made once, before the clock: only the call is timed.",
        f"args = ({''.join(a + ', ' for a in args)})",
        f"kwargs = {{{', '.join(kwargs)}}}",
        "call = lambda fn: fn(*args, **kwargs)",
        "eager_fn = f.python_function",
        "graph_fn = f",
        "call(graph_fn)  # trace once, outside the clock",
    ]
    modes = [("eager", "eager_fn"), ("graph", "graph_fn")]
    if jit:
        lines += ["xla_fn = tf.function(f.python_function, jit_compile=True)", "call(xla_fn)"]
        modes.append(("XLA", "xla_fn"))
    lines.append("for label, fn in [" + ", ".join(f"({m!r}, {v})" for m, v in modes) + "]:")
    lines.append("    runs, total = timeit.Timer(lambda: call(fn)).autorange()")
    lines.append('    print(f"{label}: {total / runs * 1e6:.1f} us per call ({runs} calls)")')
    return "\n".join(lines)


def build(job: Job, report: Report | None = None) -> nbformat.NotebookNode:
    """A notebook that reproduces `job` in plain TensorFlow (no playground needed)."""
    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    version = report.tensorflow_version if report else ""
    intro = [
        _("# tf.function playground run"),
        "",
        _(
            "This notebook reproduces a playground run in plain TensorFlow (the playground "
            "ran TensorFlow {version})."
        ).format(version=markdown_literal(version))
        if version
        else _("This notebook reproduces a playground run in plain TensorFlow."),
    ]

    cells = [
        v4.new_markdown_cell("\n".join(intro)),
        v4.new_code_cell("import numpy as np\nimport tensorflow as tf\n\nprint(tf.__version__)"),
        v4.new_markdown_cell(_("## Your code")),
        v4.new_code_cell(job.source.rstrip("\n")),
    ]
    if job.function is None:
        cells.append(
            v4.new_markdown_cell(
                _(
                    "The code ran as a script: the cell above is the whole run. "
                    "Each `tf.function` it left in the module, and its traces:"
                )
            )
        )
        cells.append(
            v4.new_code_cell(
                "for name, value in list(globals().items()):\n"
                "    if hasattr(value, 'experimental_get_tracing_count'):\n"
                "        print(name, 'traced', value.experimental_get_tracing_count(), 'time(s)')\n"
                "        print(tf.autograph.to_code(value.python_function))"
            )
        )
        nb.cells = cells
        return nb
    recorded = _recorded(report, job)
    calls = [parse_call(text) for text in job.calls]
    cells += [
        v4.new_markdown_cell(
            _("## The call plan\n\nTensors get deterministic values: the same as in the playground's run.")
        ),
        v4.new_code_cell(MAKE_TENSOR),
        v4.new_code_cell(_function_cell(job)),
    ]
    for index, (text, call) in enumerate(zip(job.calls, calls)):
        expected = f"  # the playground saw {int(recorded[index])}" if index in recorded else ""
        cells.append(
            v4.new_code_cell(
                f"# Call {index + 1}: {_comment(text)}\n"
                f"result = {call_expression(call, index)}\n"
                f"print(result)\n"
                f"print('tracing count:', f.experimental_get_tracing_count()){expected}"
            )
        )
    cells += [
        v4.new_markdown_cell(_("## What AutoGraph made of it")),
        v4.new_code_cell("print(tf.autograph.to_code(f.python_function))"),
    ]
    if job.timing and calls:
        cells += [
            v4.new_markdown_cell(_("## Timing")),
            v4.new_code_cell(_timing_cell(calls[-1], len(calls) - 1, job.jit_compile or _had_xla(report))),
        ]
    nb.cells = cells + _pitfalls(report)
    return nb


def _had_xla(report: Report | None) -> bool:
    """Whether the run timed XLA (the engine adds it beside eager and graph)."""
    return report is not None and any(
        f.timing is not None and f.timing.xla is not None for f in report.functions
    )


def _pitfalls(report: Report | None) -> list:
    """The run's pitfalls and their fixes, as text (a report's words are never code here)."""
    if report is None or not report.warnings:
        return []
    items = []  # a paragraph each: the report's words escaped, in no structure but ours
    for w in report.warnings:
        where = _("line {line}").format(line=int(w.line)) + ": " if isinstance(w.line, int) else ""
        fix = "\n" + _("Fix: {fix}").format(fix=markdown_literal(w.fix)) if w.fix else ""
        items.append(f"{where}{code_span(w.code)} {markdown_literal(w.message)}{fix}")
    return [v4.new_markdown_cell(_("## Pitfalls the playground found") + "\n\n" + "\n\n".join(items))]


def dumps(job: Job, report: Report | None = None) -> str:
    nb = build(job, report)
    nbformat.validate(nb)
    return nbformat.writes(nb)


@dataclass(frozen=True)
class Opened:
    """A file's code for the editor, and what was left out of it (shown to the user)."""

    source: str
    dropped: list[str] = field(default_factory=list)


# Cell magics whose body is Python; any other (%%bash, %%html, %%writefile...) drops its cell.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")


def _strip_lines(text: str, dropped: list[str]) -> str:
    kept = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("%", "!")):
            dropped.append(stripped)
        else:
            kept.append(line)
    return "\n".join(kept)


def code_of(name: str, data: bytes) -> Opened:
    """The editor text of a `.py` or `.ipynb` file: code cells joined, magics and ! lines dropped.

    Raises ValueError with a message for the user when the file cannot be read."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(_("the file is over {limit} MiB").format(limit=MAX_NOTEBOOK_BYTES >> 20))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(_("the file is not UTF-8 text")) from None
    dropped: list[str] = []
    if not name.lower().endswith(".ipynb"):
        return Opened(_strip_lines(text, dropped).rstrip("\n") + "\n", dropped)
    not_a_notebook = _("the file is not a Jupyter notebook")
    try:
        nb = nbformat.reads(text, as_version=4)
    except (
        json.JSONDecodeError,
        nbformat.reader.NotJSONError,
        KeyError,
        ValueError,
        AttributeError,
        TypeError,
    ):
        raise ValueError(not_a_notebook) from None
    except RecursionError:  # JSON nested thousands deep: json's decoder recurses
        raise ValueError(_("the file is not a Jupyter notebook: it is nested too deeply to read")) from None
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise ValueError(not_a_notebook)
    chunks = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        body = cell.get("source", "")
        if isinstance(body, list) and all(isinstance(line, str) for line in body):
            body = "".join(body)  # the file's own form; nbformat joins it when it validates
        if not isinstance(body, str):
            raise ValueError(_("the file is not a Jupyter notebook: a code cell's source is not text"))
        first = body.lstrip().split("\n", 1)[0].strip()
        if first.startswith("%%") and not first.startswith(_PYTHON_CELL_MAGICS):
            dropped.append(_("a {magic} cell").format(magic=first.split()[0]))
            continue
        code = _strip_lines(body, dropped).strip("\n")
        if code.strip():
            chunks.append(code)
    return Opened("\n\n".join(chunks) + "\n", dropped)
