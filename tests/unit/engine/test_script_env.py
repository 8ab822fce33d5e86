"""engine/script_env.py and the capture: the user's code gets plain Python's recursion budget,
TF's logger as TF set it up, and C's stdout in order with Python's, also in-process (here,
under pytest's deep stack) and after the script changes the limit itself."""

from __future__ import annotations

import ctypes
import logging
import subprocess
import sys

import pytest

from playground.contract.job import Job
from playground.engine import script_env
from playground.engine.capture import OutputCapture
from playground.engine.pipeline import analyze

RECURSION = """import sys

def depth(n=0):
    try:
        return depth(n + 1)
    except RecursionError:
        return n

print("limit", sys.getrecursionlimit(), "depth", depth())
sys.setrecursionlimit(2000)
print("limit", sys.getrecursionlimit(), "depth", depth())
for bad in ("many", 0, -5):
    try:
        sys.setrecursionlimit(bad)
    except (TypeError, ValueError, RecursionError) as e:
        print(type(e).__name__, e)
"""


def plain_python(source: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def test_a_deep_recursion_fails_where_it_fails_in_plain_python():
    before = sys.getrecursionlimit()
    report = analyze(Job(source=RECURSION, function=None))
    assert report.status == "ok", report.error
    assert report.stdout == plain_python(RECURSION)
    assert "limit 2000 depth 1998" in report.stdout
    # The shims are gone, and so is the limit the script set: the next run starts afresh.
    assert sys.getrecursionlimit is script_env._real_get
    assert sys.getrecursionlimit() == before


def test_the_depth_holds_run_after_run_in_one_process():
    """The measurement is fresh code each run: a reused probe, once CPython had specialised it,
    let the 30th run of a script recurse one frame deeper than plain Python."""
    source = RECURSION.split("sys.setrecursionlimit(2000)")[0]
    expected = plain_python(source)
    for _ in range(30):
        assert analyze(Job(source=source, function=None)).stdout == expected


def test_a_limit_set_by_the_module_holds_for_the_entry_calls():
    # f runs converted by AutoGraph, whose frames halve the depth: ~490 under the default limit
    source = RECURSION + "def f():\n    print('in f', sys.getrecursionlimit(), depth() > 800)\n"
    report = analyze(Job(source=source, function="f", calls=("()",)))
    assert report.status == "ok", report.error
    assert "in f 2000 True" in report.stdout


def test_tfs_logger_is_as_tf_set_it_up_while_the_retracing_warning_is_still_kept():
    source = """import tensorflow as tf
print([type(h).__name__ for h in tf.get_logger().handlers])

@tf.function
def f(x):
    return x

for i in range(8):
    f(i)
"""
    report = analyze(Job(source=source, function=None))
    assert report.status == "ok", report.error
    assert report.stdout.splitlines()[0] == str(
        [type(h).__name__ for h in logging.getLogger("tensorflow").handlers]
    )
    kept = [w for f in report.functions for w in f.retracing_warnings]
    assert kept and all("triggered tf.function retracing" in w for w in kept)


def test_c_stdout_lands_in_order_with_pythons():
    capture = OutputCapture()
    libc = ctypes.CDLL(None)
    with capture.redirect():
        print("one")
        libc.printf(b"two from C\n")
        print("three")
    try:
        assert capture.text().splitlines() == ["one", "two from C", "three"]
    finally:
        capture.close()


@pytest.mark.parametrize("bad", ["many", 0, 1])
def test_a_bad_limit_gets_pythons_own_error(bad):
    with script_env.recursion_budget(script_env.headroom()):
        with pytest.raises((TypeError, ValueError, RecursionError)) as shimmed:
            sys.setrecursionlimit(bad)
    with pytest.raises(type(shimmed.value)) as real:
        sys.setrecursionlimit(bad)
    if bad == 1:  # same words; the depth is the script's, not pytest's
        assert str(shimmed.value).startswith("cannot set the recursion limit to 1 at the recursion depth ")
    else:
        assert str(shimmed.value) == str(real.value)
