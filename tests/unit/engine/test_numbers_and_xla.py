"""Numbers side by side (--numbers, engine/numbers.py) and XLA's verdict before it compiles
(graphs.xla_verdict), against plain TensorFlow: the same inputs through TF's own eager, graph
and XLA, numpy's reading of their differences, and XLA's own error. XLA's CPU kernels
approximate tanh and sum in another order, so eager against XLA differs by a little."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from playground import gallery  # noqa: E402
from playground.contract.job import Job  # noqa: E402
from playground.engine import numbers  # noqa: E402
from playground.engine.pipeline import analyze  # noqa: E402


def squash(x):
    return tf.tanh(x) * tf.exp(-x * x) + tf.math.log1p(tf.abs(x)), tf.reduce_sum(tf.sigmoid(x * 3.0))


def test_each_difference_is_numpys_reading_of_plain_tfs_own_outputs():
    x = tf.random.stateless_normal([4096], seed=[1, 2]) * 4
    plain = {
        "eager": squash(x),
        "graph": tf.function(squash)(x),
        "xla": tf.function(squash, jit_compile=True)(x),
    }
    found = numbers.compare(squash, {}, [(0, "float32[4096]", [x], {})], tolerance=1e-5)
    (call,) = found.calls
    assert [(d.a, d.b, d.output) for d in call.diffs] == [
        (a, b, out) for a, b in numbers.PAIRS for out in ("[0]", "[1]")
    ]
    for diff in call.diffs:
        left, right = (plain[diff.a][int(diff.output[1])].numpy(), plain[diff.b][int(diff.output[1])].numpy())
        error = np.abs(left.astype(np.float64) - right.astype(np.float64))
        assert diff.max_abs == pytest.approx(float(error.max()), abs=0)
        if left.shape:
            assert diff.where == str([int(np.argmax(error))])
        expected = np.allclose(right, left, rtol=1e-5, atol=1e-5)
        assert diff.verdict == ("match" if expected else "differs")
    xla_sum = next(d for d in call.diffs if (d.a, d.b, d.output) == ("eager", "xla", "[1]"))
    assert xla_sum.max_abs and xla_sum.max_abs > 0  # XLA summed in its own order


def test_a_tight_tolerance_turns_xlas_small_error_into_a_difference():
    x = tf.random.stateless_normal([4096], seed=[1, 2]) * 4
    loose = numbers.compare(squash, {}, [(0, "", [x], {})], tolerance=1e-5).calls[0].diffs
    tight = numbers.compare(squash, {}, [(0, "", [x], {})], tolerance=1e-9).calls[0].diffs
    assert all(d.verdict == "match" for d in loose)
    assert {(d.a, d.b) for d in tight if d.verdict == "differs"} == {("eager", "xla"), ("graph", "xla")}


def test_a_mode_that_raises_and_outputs_that_do_not_fit_are_named():
    def shaped(x):
        if tf.executing_eagerly():
            return x
        return tf.reshape(x, [-1, 1])

    found = numbers.compare(shaped, {}, [(0, "", [tf.ones([3])], {})], tolerance=1e-5).calls[0].diffs
    assert [d.verdict for d in found] == ["mismatch", "mismatch", "match"]
    assert "float32[3]" in found[0].note and "float32[3, 1]" in found[0].note

    def eager_only(x):
        return tf.constant(x.numpy())  # .numpy() has no graph

    failed = numbers.compare(eager_only, {}, [(0, "", [tf.ones([2])], {})], tolerance=1e-5).calls[0].diffs
    assert [d.verdict for d in failed] == ["failed"] * 3 and "AttributeError" in failed[0].note


def test_random_and_stateful_functions_say_why_modes_differ():
    state = tf.Variable(0.0)

    def noisy(x):
        state.assign_add(1.0)
        return x + tf.random.uniform([2]) + state

    found = numbers.compare(noisy, {}, [(0, "", [tf.zeros([2])], {})], tolerance=1e-5)
    assert len(found.notes) == 2 and "random" in found.notes[0] and "variables" in found.notes[1]


def test_the_pipeline_compares_every_successful_call_when_asked():
    source = "import tensorflow as tf\n\n@tf.function\ndef double(x):\n    return x * 2.0\n"
    job = Job(source=source, function="double", calls=["float32[3]", "float32[5]"], numbers=True)
    report = analyze(job)
    found = report.functions[0].numbers
    assert found is not None and found.tolerance == 1e-5
    assert [(c.index, c.args) for c in found.calls] == [(0, "float32[3]"), (1, "float32[5]")]
    assert all(d.verdict == "match" and d.max_abs == 0 for c in found.calls for d in c.diffs)
    assert analyze(Job(source=source, function="double", calls=["float32[3]"])).functions[0].numbers is None


def test_the_cli_text_and_the_notebook_view_say_it_in_one_sentence_and_a_row_each():
    from playground.cli import render_text
    from playground.jupyter import view

    source = "import tensorflow as tf\n\n@tf.function\ndef squash(x):\n    return tf.reduce_sum(tf.sigmoid(x * 3.0))\n"
    job = Job(source=source, function="squash", calls=["float32[4096]"], numbers=True, tolerance=1e-9)
    report = analyze(job)
    text = render_text.render(report)
    assert "numbers: " in text and "comparison(s) beyond 1e-09" in text
    assert text.count("float32[4096]") >= 3  # a row per pair of modes
    html = view.function_html(report.functions[0], source)
    assert "tfp-numbers" in html and "comparison(s) beyond 1e-09" in html


# The gallery's xla-unsupported: tf.strings.format and tf.strings.length at lines 5 and 6.
STRINGY = gallery.BY_SLUG["xla-unsupported"].source


def test_xla_names_the_ops_it_cannot_take_before_compiling_and_tfs_error_names_the_first():
    report = analyze(Job(source=STRINGY, function="describe", calls=["float32[3]"]))
    verdict = report.functions[0].xla
    assert verdict is not None and verdict.device == "XLA_CPU_JIT" and verdict.compiled is False
    assert [(op.type, op.line) for op in verdict.unsupported] == [("StringFormat", 5), ("StringLength", 6)]
    # Plain TF, the same function: XLA's error at compile time names the first of them, and its line.
    scope: dict = {}
    exec(compile(STRINGY, "describe.py", "exec"), scope)  # noqa: S102 - the test's own source
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        scope["describe"](tf.ones([3]))
    message = str(error.value)
    assert "XLA_CPU_JIT: StringFormat (No registered 'StringFormat'" in message
    assert 'describe.py", line 5, in describe' in message


def test_a_function_xla_takes_whole_has_no_unsupported_op_and_compiled():
    source = (
        "import tensorflow as tf\n\n@tf.function(jit_compile=True)\ndef f(x):\n    return tf.tanh(x) * 2.0\n"
    )
    verdict = analyze(Job(source=source, function="f", calls=["float32[3]"])).functions[0].xla
    assert verdict is not None and verdict.unsupported == [] and verdict.compiled is True
    off = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n"
    assert analyze(Job(source=off, function="f", calls=["float32[3]"])).functions[0].xla is None


def test_the_cli_text_names_what_xla_cannot_take():
    from playground.cli import render_text

    text = render_text.render(analyze(Job(source=STRINGY, function="describe", calls=["float32[3]"])))
    assert "XLA: XLA has no kernel on XLA_CPU_JIT for 2 op(s) of this graph: StringFormat at line 5;" in text
    assert "XLA did not compile this function" in text
