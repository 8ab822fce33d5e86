"""Script mode observes without perturbing: the user's objects stay TF's own, their calls run as
under plain Python, and the outcome is the script's. Through the real engine, in process; the
differential suite (tests/integration/differential) checks the same against `python file.py`."""

from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")

import tf_facts

from playground.contract.job import Job
from playground.engine.pipeline import analyze


def script(source: str, **options):
    return analyze(Job(source=source, function=None, filename="user.py", **options))


def test_the_users_function_is_tfs_own_object():
    report = script("""import tensorflow as tf

@tf.function
def f(x):
    return x + 1

print(type(f).__name__, isinstance(f, tf.types.experimental.GenericFunction))
print(f.python_function.__name__)
cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
print(cf.structured_input_signature[0][0].shape)
f(tf.constant([1.0, 2.0]))
print(f.experimental_get_tracing_count())
""")
    assert report.status == "ok", report.error
    assert report.stdout.splitlines() == ["Function True", "f", "(2,)", "1"]
    assert report.functions[0].tracing_count == 1
    assert [c.retraced for c in report.functions[0].calls] == [False]  # the concrete function
    assert report.functions[0].global_names == ["f"]


def test_recursion_and_nested_functions_run_as_plain_tf():
    report = script("""import tensorflow as tf

@tf.function
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)

@tf.function
def double(a):
    return a + a

@tf.function
def outer(x):
    return double(x) + 1

print(int(fact(4)), int(outer(tf.constant(1))))
""")
    assert report.status == "ok", report.error
    assert report.stdout.splitlines() == ["24 3"]
    assert "could not transform" not in report.stdout
    by_name = {f.name: f for f in report.functions}
    assert len(by_name["fact"].calls) == 1  # the user's one call, not the recursion
    assert by_name["fact"].tracing_count == 4  # Literal 4, 3, 2, 1
    assert len(by_name["double"].calls) == 0 and by_name["double"].tracing_count == 1


def test_a_handled_exception_is_the_scripts_business():
    report = script("""import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def f(x):
    return x * 2

try:
    f(tf.constant([1, 2]))
except (TypeError, ValueError):  # ValueError before TF 2.13 (tests/support/tf_facts.py)
    print("caught")
f(tf.constant([1.0]))
""")
    assert report.status == "ok" and report.error is None
    bad, good = report.functions[0].calls
    assert bad.error.type == tf_facts.BINDING_ERROR and bad.handled
    assert good.error is None and not good.handled
    assert "handled by the script" in report.message


def test_an_uncaught_exception_is_an_error_at_the_users_line_with_their_frames_only():
    report = script("""import tensorflow as tf

@tf.function
def g(x):
    return tf.reshape(x, [5])

try:
    g(tf.constant([1.0]))
except ValueError:
    pass
g(tf.constant([1.0, 2.0]))
""")
    assert report.status == "error"
    assert report.error.type == "ValueError" and report.error.line == 11
    first, second = report.functions[0].calls
    assert first.handled and not second.handled  # the second one ended the script
    traceback = report.error.traceback
    assert traceback.startswith("Traceback (most recent call last):")
    assert 'File "user.py", line 11, in <module>' in traceback
    for leak in ("playground/", "runpy", "/opt/", "/work/"):
        assert leak not in traceback and leak not in report.error.message


def test_tfs_stack_texts_lose_the_workers_frames():
    report = script("""import tensorflow as tf

leaked = []

@tf.function
def f(x):
    y = x * 2
    leaked.append(y)
    return y

f(tf.constant(1.0))
print(leaked[0] + 1)
""")
    assert report.status == "error"
    message = report.error.message
    assert "was defined here" in message or "out of scope" in message, message
    assert 'File "user.py"' in message
    for leak in ("playground/", "<frozen runpy>", "/opt/", "/work/"):
        assert leak not in message


def test_string_and_odd_values_print_without_losing_the_run():
    report = script("""import collections
import tensorflow as tf

Pair = collections.namedtuple("Pair", "a b")

@tf.function
def double(a):
    return a + a

@tf.function
def odd(x):
    return {"s": tf.strings.join([x, x]), "p": Pair(tf.zeros([0]), None), "c": tf.complex(1.0, 2.0)}

print(double(tf.constant("a")).numpy())
odd(tf.constant("b"))
print("end")
""")
    assert report.status == "ok", report.error
    assert report.stdout.splitlines() == ["b'aa'", "end"]
    double, odd = report.functions
    assert double.calls[0].output == "string[] b'aa'"
    assert "'p': Pair(a=float32[0] [], b=None)" in odd.calls[0].output
    assert "complex64[] (1+2j)" in odd.calls[0].output


def test_the_file_runs_as_main_with_its_own_name():
    report = script("""import sys
print(__name__, __file__, sys.argv)
if __name__ == "__main__":
    print("main block ran")
""")
    assert report.stdout.splitlines() == ["__main__ user.py ['user.py']", "main block ran"]


@pytest.mark.parametrize(
    "exit_call, status", [("sys.exit(0)", "ok"), ("sys.exit()", "ok"), ("sys.exit(3)", "error")]
)
def test_exit_status_is_the_scripts(exit_call, status):
    report = script(f"import sys\nprint('before')\n{exit_call}\nprint('after')\n")
    assert report.status == status
    assert report.stdout == "before\n"


def test_a_syntax_error_keeps_its_name_line_and_column():
    report = script("import tensorflow as tf\n\n\ndef broken(x)\n    return x\n")
    assert report.status == "error"
    assert (report.error.type, report.error.line, report.error.column) == ("SyntaxError", 4, 14)
    assert report.error.message == "expected ':'"
    assert 'File "user.py", line 4' in report.error.traceback


def test_indentation_errors_are_named_as_python_names_them():
    report = script("def f(x):\nreturn x\n")
    assert (report.error.type, report.error.line) == ("IndentationError", 2)


def test_methods_are_tracked_per_instance_and_the_class_level_function_is_left_out():
    report = script("""import tensorflow as tf

class Counter(tf.Module):
    def __init__(self):
        self.n = tf.Variable(0)

    @tf.function
    def increment(self):
        self.n.assign_add(1)
        return self.n.read_value()

a, b = Counter(), Counter()
a.increment(); a.increment(); b.increment()
print(int(a.n), int(b.n))
""")
    assert report.status == "ok", report.error
    assert report.stdout == "2 1\n"
    assert [(f.name, len(f.calls), f.tracing_count) for f in report.functions] == [
        ("Counter.increment", 2, 1),
        ("Counter.increment", 1, 1),
    ]


def test_library_tf_functions_are_reported_apart_from_the_users():
    report = script("""import tensorflow as tf

ds = tf.data.Dataset.range(3).map(lambda x: x * 2)
print([int(v) for v in ds])
""")
    assert report.status == "ok", report.error
    assert report.functions == []
    assert [(f.maker, f.made_at, f.tracing_count) for f in report.library_functions] == [
        ("tf.data: DatasetV2.map", 3, 1)
    ]
    assert report.stdout == "[0, 2, 4]\n"


def test_a_tf_function_of_a_library_function_is_the_users():
    report = script("""import tensorflow as tf

matmul = tf.function(tf.linalg.matmul)
print(matmul(tf.ones([2, 2]), tf.ones([2, 2])).numpy().sum())
""")
    assert report.status == "ok", report.error
    assert [(f.global_names, f.tracing_count, len(f.calls)) for f in report.functions] == [(["matmul"], 1, 1)]
