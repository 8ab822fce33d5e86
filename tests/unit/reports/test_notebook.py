"""The notebook builder and reader (playground/reports/notebook.py): pure, validated with nbformat."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import nbformat
import pytest
import repo_paths

from playground.contract.job import Job, Report, job_from_json
from playground.reports import notebook
from playground.reports.safe_text import unescape_markdown

DATA = repo_paths.DATA
ROOT = repo_paths.ROOT


def code_cells(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_notebook_of_a_run_is_valid_and_has_each_call_and_the_converted_code() -> None:
    job = job_from_json((DATA / "square_sum.job.json").read_text())
    report = Report.from_json((DATA / "square_sum.json").read_text())
    nb = notebook.build(job, report)
    nbformat.validate(nb)
    cells = code_cells(nb)
    assert job.source.strip() in cells
    calls = [c for c in cells if c.startswith("# Call ")]
    assert len(calls) == len(job.calls)
    assert all("f.experimental_get_tracing_count()" in c for c in calls)
    assert any("tf.autograph.to_code(f.python_function)" in c for c in cells)
    assert not any("timeit" in c for c in cells)  # timing was off
    assert code_cells(nbformat.reads(notebook.dumps(job, report), as_version=4)) == cells


def test_call_plan_becomes_real_calls_with_the_engines_seeds() -> None:
    from playground.contract.specs import parse_call

    assert (
        notebook.call_expression(parse_call("float32[2,3], n=2"), 1)
        == "f(make_tensor('float32', (2, 3), seed=1000), n=2)"
    )
    assert notebook.call_expression(parse_call(""), 0) == "f()"
    assert (
        notebook.call_expression(parse_call('int32[], "a", flag=True'), 0)
        == "f(make_tensor('int32', (), seed=0), 'a', flag=True)"
    )


def test_options_signature_and_timing_cells() -> None:
    job = Job(
        source="import tensorflow as tf\n\ndef g(x):\n    return x * 2\n",
        function="g",
        calls=("float32[4]", "float32[8]"),
        signature="float32[None]",
        reduce_retracing=True,
        jit_compile=True,
        timing=True,
    )
    nb = notebook.build(job)
    nbformat.validate(nb)
    cells = "\n".join(code_cells(nb))
    assert "input_signature=[tf.TensorSpec((None,), tf.float32)]" in cells
    assert "reduce_retracing=True" in cells and "jit_compile=True" in cells
    assert "timeit" in cells and "xla_fn" in cells


def test_script_mode_notebook_lists_the_modules_functions() -> None:
    nb = notebook.build(Job(source="print('hi')\n"))
    nbformat.validate(nb)
    assert "experimental_get_tracing_count" in code_cells(nb)[-1]


def run_cells(folder, cells: list[str]) -> subprocess.CompletedProcess:
    """A notebook's code cells as one script, in plain Python with plain TensorFlow (a child)."""
    script = folder / "nb.py"
    script.write_text("\n\n".join(cells))
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
        env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "2"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_notebook_runs_in_plain_tensorflow_and_traces_as_the_playground_did(tmp_path) -> None:
    """The engine's values: same tensors, same traces (this imports TensorFlow, in a child)."""
    job = job_from_json((DATA / "square_sum.job.json").read_text())
    report = Report.from_json((DATA / "square_sum.json").read_text())
    done = run_cells(tmp_path, code_cells(notebook.build(job, report)))
    counts = [int(n) for n in re.findall(r"^tracing count: (\d+)", done.stdout, re.M)]
    entry = next(f for f in report.functions if f.name == job.function)
    assert counts == [c.tracing_count for c in entry.calls]
    assert "def tf__" in done.stdout


def test_opening_a_notebook_joins_code_cells_and_names_what_it_dropped() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("!pip install tensorflow\n%matplotlib inline\nimport tensorflow as tf"),
        nbformat.v4.new_code_cell("%%bash\necho hi"),
        nbformat.v4.new_code_cell("%%time\n@tf.function\ndef f(x):\n    return x + 1"),
    ]
    opened = notebook.code_of("demo.ipynb", nbformat.writes(nb).encode())
    assert opened.source == "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x + 1\n"
    assert opened.dropped == ["!pip install tensorflow", "%matplotlib inline", "a %%bash cell", "%%time"]


def test_opening_a_py_file_and_bad_files() -> None:
    assert notebook.code_of("f.py", b"import tensorflow as tf\n").source == "import tensorflow as tf\n"
    assert notebook.code_of("f.py", b"x = 1\n%timeit x\n").dropped == ["%timeit x"]
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        notebook.code_of("f.ipynb", b"{not json")
    with pytest.raises(ValueError, match="UTF-8"):
        notebook.code_of("f.py", b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="MiB"):
        notebook.code_of("f.py", b"#" * (notebook.MAX_NOTEBOOK_BYTES + 1))


def test_notebook_module_imports_neither_streamlit_nor_tensorflow() -> None:
    code = (
        "import sys; import playground.reports.notebook; "
        "print(json.dumps(['streamlit' in sys.modules, 'tensorflow' in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import json; " + code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert json.loads(done.stdout) == [False, False]


def test_the_timing_cell_times_only_the_call_with_xla_and_the_pitfalls_are_listed(tmp_path) -> None:
    """A timed jit_compile run: its notebook times eager, graph and XLA on inputs made once,
    before the clock (make_tensor is counted), and lists the run's pitfalls with their fixes."""
    job = job_from_json((DATA / "retracing_timing.job.json").read_text())
    report = Report.from_json((DATA / "retracing_timing.json").read_text())
    nb = notebook.build(job, report)
    nbformat.validate(nb)
    cells = code_cells(nb)
    counting = (
        "_made = [0]\n_real_make = make_tensor\n\n\ndef make_tensor(*a, **k):\n"
        "    _made[0] += 1\n    return _real_make(*a, **k)\n"
    )
    at = cells.index(notebook.MAKE_TENSOR) + 1
    done = run_cells(tmp_path, [*cells[:at], counting, *cells[at:], "print('made', _made[0])"])
    assert [
        m.group(1) for m in re.finditer(r"^(eager|graph|XLA): [\d.]+ us per call", done.stdout, re.M)
    ] == [
        "eager",
        "graph",
        "XLA",
    ]
    tensors = sum(1 for c in cells if c.startswith("# Call ")) + 1  # one per call, one for timing
    assert f"made {tensors}\n" in done.stdout  # not once per timed call
    pitfalls = next(c.source for c in nb.cells if c.cell_type == "markdown" and "Pitfalls" in c.source)
    for warning in report.warnings:  # escaped markdown: as a reader sees it
        assert f"`{warning.code}` {warning.message}" in unescape_markdown(pitfalls)
        assert f"Fix: {warning.fix}" in unescape_markdown(pitfalls)


def test_the_new_forms_and_the_codes_own_arguments_run_in_plain_tensorflow(tmp_path) -> None:
    """Each form of the plan, and a spread of the code's make_batch, as the notebook writes them:
    the same sums as the engine's run of the same job (this imports TensorFlow, here and in a child)."""
    from playground.engine.pipeline import analyze

    job = Job(
        source=(
            "import tensorflow as tf\n\n"
            "def make_batch(n):\n    return tf.ones([n, 2]) * 3, tf.range(n)\n\n"
            "@tf.function\ndef total(x, y):\n"
            "    return tf.reduce_sum(tf.cast(x, tf.float64)) + tf.reduce_sum(tf.cast(y, tf.float64))\n"
        ),
        function="total",
        calls=(
            "float32[4,2], int32[4] in [0, 3)",
            "*make_batch(4)",
            "tf.random.normal([3], seed=4), tf.eye(2, 3, dtype=tf.int32)",
            "tf.fill([2], 0.5), y=tf.random.uniform([5], 2, 9, dtype=tf.int64)",
        ),
    )
    engine = [float(c.output.split()[-1]) for c in analyze(job).functions[0].calls]
    cells = [c for c in code_cells(notebook.build(job)) if "autograph" not in c]
    done = run_cells(tmp_path, cells)
    printed = [float(n) for n in re.findall(r"^tf\.Tensor\(([-\d.e+]+), shape=\(\)", done.stdout, re.M)]
    assert printed == pytest.approx(engine, rel=1e-12) and len(printed) == 4


HOSTILE_NOTEBOOKS = {
    "nested 100,000 deep": b'{"cells": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "cells not a list": b'{"cells": 5, "nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
    "a source that is no text": (
        b'{"cells": [{"cell_type": "code", "source": {"a": 1}, "metadata": {}, "outputs": [],'
        b' "execution_count": null}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}'
    ),
}


@pytest.mark.parametrize("data", HOSTILE_NOTEBOOKS.values(), ids=HOSTILE_NOTEBOOKS.keys())
def test_a_hostile_notebook_is_refused_in_words(data) -> None:
    """Each raised RecursionError or TypeError (an exception box in the page), or put a dict's
    repr into the editor as code."""
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        notebook.code_of("evil.ipynb", data)
