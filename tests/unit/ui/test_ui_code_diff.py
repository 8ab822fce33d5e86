"""The converted-code diff on real tf.autograph.to_code output (recorded by tests/data/record_code.py)."""

from __future__ import annotations

import json

import pytest
import repo_paths

from playground.ui import code_diff

RECORDED = json.loads((repo_paths.DATA / "to_code.json").read_text())


def run(name: str) -> code_diff.CodeDiff:
    entry = RECORDED[name]
    source = entry["source"]
    return code_diff.diff(source[source.index("@tf.function") :], entry["converted"])


def marked(result: code_diff.CodeDiff, prefix: str) -> list[str]:
    return [line[2:].strip() for line in result.text.splitlines() if line.startswith(prefix)]


def test_name_loads_and_wrapper_are_not_changes() -> None:
    result = run("square_sum")
    kept = marked(result, "  ")
    assert "y = ag__.ld(x) * ag__.ld(x)" in kept  # only ag__.ld noise: unchanged
    assert "y = ag__.ld(y) + 1.0" in kept
    assert kept[0] == "def tf__square_sum(x, n):"
    for wrapper in (
        "do_return = False",
        "retval_ = ag__.UndefinedReturnValue()",
        "try:",
        "do_return = True",
        "except:",
        "raise",
        "return fscope.ret(retval_, do_return)",
    ):
        assert wrapper in kept and wrapper not in marked(result, "+ ")
    assert not any(line.startswith("with ag__.FunctionScope") for line in marked(result, "+ "))


def test_for_over_tensor_becomes_for_stmt_and_call_converted_call() -> None:
    result = run("square_sum")
    added = marked(result, "+ ")
    assert any(line.startswith("ag__.for_stmt(") for line in added)
    assert any("ag__.converted_call(ag__.ld(tf).reduce_sum" in line for line in added)
    assert marked(result, "- ") == ["for _ in tf.range(n):", "return tf.reduce_sum(y)"]
    # The old marker flagged every line not found verbatim; now the unchanged body is kept.
    assert result.kept == 3 and result.added == len(added) == 11


def test_if_becomes_if_stmt_with_bodies_kept() -> None:
    result = run("branch")
    added, removed = marked(result, "+ "), marked(result, "- ")
    assert any(line.startswith("ag__.if_stmt(ag__.ld(factor) > 1") for line in added)
    assert "if factor > 1:" in removed and "else:" in removed
    assert "x = ag__.ld(x) * ag__.ld(factor)" in marked(result, "  ")
    assert not any(line.startswith("#") for line in removed)  # comments are not code changes


def test_while_becomes_while_stmt_and_helper_call_is_converted() -> None:
    result = run("countdown")
    added, removed = marked(result, "+ "), marked(result, "- ")
    assert any(line.startswith("ag__.while_stmt(loop_test") for line in added)
    assert "while i > 0:" in removed
    assert any("ag__.converted_call(ag__.ld(helper)" in line for line in added)
    assert "i -= 1" in marked(result, "  ")
    # The print keeps its meaning (double quotes vs single, ag__.ld(print)): not a change.
    assert "ag__.ld(print)('tracing', ag__.ld(x).shape)" in marked(result, "  ")
    assert "retval_ = ag__.ld(total)" in marked(result, "  ")  # the return, as AutoGraph writes it


def test_python_range_loop_is_a_for_stmt_too() -> None:
    result = run("python_loop")
    assert any(
        line.startswith("ag__.for_stmt(ag__.converted_call(ag__.ld(range)") for line in marked(result, "+ ")
    )
    assert marked(result, "- ") == ["for k in range(3):"]


def test_removed_lines_sit_at_the_converted_body_depth() -> None:
    line = next(x for x in run("square_sum").text.splitlines() if x.startswith("- "))
    assert line == "-         for _ in tf.range(n):"


@pytest.mark.parametrize(
    "line, key",
    [
        ("    y = ag__.ld(x) * ag__.ld(x)", "y = x * x"),
        ("z = ag__.ldu(lambda : z, 'z')", "z = z"),
        ('print("a")  # note', "print ( 'a' )"),
        ("retval_ = ag__.ld(y)", "return y"),
        ("def tf__f(x):", "def f ( x ) :"),
    ],
)
def test_normalise(line: str, key: str) -> None:
    assert code_diff.normalise(line) == code_diff.normalise(key)


def test_identical_code_has_no_marks_and_a_user_try_is_not_boilerplate() -> None:
    source = "def f(x):\n    try:\n        y = x\n    except:\n        raise\n    return y\n"
    result = code_diff.diff(source, source)
    assert result.added == result.removed == 0 and result.kept == 6


def test_between_marks_what_only_one_side_has() -> None:
    a = RECORDED["square_sum"]["converted"]
    b = a.replace("y = ", "z = ", 1)
    change = code_diff.between(a, b)
    (removed,) = [line for line in change.text.splitlines() if line.startswith("- ")]
    (added,) = [line for line in change.text.splitlines() if line.startswith("+ ")]
    assert removed[2:].replace("y = ", "z = ", 1) == added[2:]
    assert (change.added, change.removed, change.kept) == (1, 1, len(a.splitlines()) - 1)
    same = code_diff.between(a, a)
    assert same.added == same.removed == 0 and same.text.splitlines() == [f"  {x}" for x in a.splitlines()]


def test_code_too_long_to_compare_is_shown_uncompared_and_said() -> None:
    """A saved report may carry any converted code up to the upload cap: a diff of a few
    thousand distinct lines each way cost the page's process about 18 CPU-s. Past MAX_PAIRS
    line pairs nothing is compared, and the result says so."""
    from playground.ui import code_diff

    original = "def f(x):\n" + "".join(f"    a{i} = x + {i}\n" for i in range(2000))
    converted = "def tf__f(x):\n" + "".join(f"    b{i} = x * {i}\n" for i in range(2000))
    result = code_diff.diff(original, converted)
    assert not result.compared and (result.added, result.removed, result.kept) == (0, 0, 0)
    assert result.text.splitlines()[1] == "      b0 = x * 0"
    assert not code_diff.between(original, converted).compared
    small = code_diff.diff("def f(x):\n    return x\n", "def tf__f(x):\n    return x\n")
    assert small.compared and small.kept == 2
