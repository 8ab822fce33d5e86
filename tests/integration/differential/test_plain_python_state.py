"""Nothing of the engine's own state reaches the user's file: its `from __future__` flags, its
module globals, its sys.path and PYTHONPATH, its handlers on TF's logger, its warning filters,
its recursion budget, its C stdio buffering, its initialised TF runtime. One probe file
(probes/plain_python_state.py) prints each of them; the playground must print what plain
Python prints, as a script and as an entry function."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from harness import _LINE_BUFFERED, Story, plain_environment, run_plain, run_pool, story_of, visible_lines

from playground.contract.config import Settings
from playground.contract.job import Job, to_dict
from playground.sandbox import WorkerPool

PROBE = Path(__file__).resolve().parent / "probes" / "plain_python_state.py"

_IMPORT_AND_CALL = """import importlib.util, sys
spec = importlib.util.spec_from_file_location("plain_python_state", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
import tensorflow as tf
tf.function(module.entry)()
"""


@pytest.fixture(scope="module")
def pool():
    with WorkerPool(Settings(pool_size=1, timeout_s=100.0, cpu_s=200)) as pool:
        assert pool.wait_ready(), "the sandbox pool did not warm up"
        yield pool


def plain_entry() -> Story:
    """Entry mode under plain Python: the file imported as a module, its entry function then
    called as a tf.function."""
    with tempfile.TemporaryDirectory() as tmp:
        driver = Path(tmp, "driver.py")
        driver.write_text(_IMPORT_AND_CALL)
        env = plain_environment()
        env.pop("PYTHONPATH", None)
        done = subprocess.run(
            [*_LINE_BUFFERED, sys.executable, str(driver), str(PROBE)],
            cwd=tmp,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=120,
            check=True,
        )
    text = done.stdout.decode()
    return Story("ok", visible_lines(text), {}, text)


def _same(plain: Story, played: Story) -> None:
    context = f"\n--- python:\n{plain.raw[-3000:]}\n--- playground:\n{played.raw[-3000:]}"
    assert played.outcome == plain.outcome == "ok", context
    assert played.lines == plain.lines, context


def test_a_script_sees_plain_pythons_process(pool):
    plain = run_plain(PROBE)
    assert "module depth 998" in plain.lines and "main block" in plain.lines  # the probe ran whole
    _same(plain, run_pool(pool, PROBE))


def test_an_entry_function_sees_plain_pythons_process(pool):
    job = Job(source=PROBE.read_text(), function="entry", calls=("()",), filename=PROBE.name, timeout_s=100)
    played = story_of(to_dict(pool.submit(job)))
    plain = plain_entry()
    # The plain reference imports the file, and the import machinery's frames sit under its
    # module: the module-level depth is the script's test above; here the entry's is compared.
    plain = Story(plain.outcome, [x for x in plain.lines if not x.startswith("module depth")], raw=plain.raw)
    played = Story(
        played.outcome, [x for x in played.lines if not x.startswith("module depth")], raw=played.raw
    )
    assert any(x.startswith("entry depth") for x in plain.lines)
    _same(plain, played)


def test_the_timing_lab_reports_the_threads_the_script_set(pool):
    source = """import tensorflow as tf
tf.config.threading.set_inter_op_parallelism_threads(3)

@tf.function
def f(x):
    return x * 2

f(tf.constant(1.0))
"""
    report = pool.submit(Job(source=source, function=None, timing=True, timing_budget_s=0.2, timeout_s=100))
    assert report.status == "ok", report.message
    measured = report.functions[0].timing
    assert measured is not None
    # inter-op: the script's; intra-op: the sandbox's default, which the script left alone
    assert (measured.environment["inter_op_threads"], measured.environment["intra_op_threads"]) == (3, 2)
