"""`analyze --compare SPEC`: bad specs exit 2 before any worker starts; real runs print both sides."""

from __future__ import annotations

import json

import pytest
from cli_support import cli, process_py  # noqa: F401 - process_py: fixture
from versions_support import extra  # noqa: F401 - fixture: CI's extra TF version (fails there if absent)

SHAPES = ["--call", "float32[3]", "--call", "float32[2,2]"]


@pytest.mark.parametrize(
    "spec, named",
    [
        ("bogus", "unknown option 'bogus'"),
        ("tf=two", "'two' is not a TensorFlow version"),
        ("jit_compile=sometimes", "jit_compile takes on or off"),
        ("signature=float32[None", "unclosed bracket"),
        ("reduce_retracing=off", "both sides would be the same"),
    ],
)
def test_malformed_compare_exits_2_with_one_line(process_py, spec, named):
    result = cli("analyze", process_py, "--function", "process", "--call", "float32[3]", "--compare", spec)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    line = result.stderr.strip()
    assert named in line and len(line.splitlines()) == 1 and line.startswith("error: ")


def test_compare_with_export_is_refused(process_py, tmp_path):
    result = cli(
        "analyze",
        process_py,
        "--function",
        "process",
        "--call",
        "float32[3]",
        "--compare",
        "jit_compile",
        "--export",
        str(tmp_path / "model"),
    )
    assert result.returncode == 2 and "cannot be combined" in result.stderr


def test_one_side_raising_exits_1_and_json_has_both_sides(process_py):
    result = cli(
        "analyze",
        process_py,
        "--function",
        "process",
        *SHAPES,
        "--compare",
        "signature=float32[None]",
        "--json",
        timeout=240,
    )
    assert result.returncode == 1, result.stderr
    compared = json.loads(result.stdout)["compare"]
    assert {"a", "b", "differences"} <= compared.keys()
    assert (compared["a"]["status"], compared["b"]["status"]) == ("ok", "error")
    assert compared["a"]["sandbox"]["isolation"] in ("bubblewrap", "process")
    assert compared["a"]["functions"][0]["tracing_count"] == 2
    errors = [d for d in compared["differences"] if d["kind"] == "error"]
    assert [(d["function"], d["call"], d["a"]) for d in errors] == [("process", 1, None)]
    assert errors[0]["b"].startswith("TypeError: Binding inputs to tf.function failed")


def test_text_shows_both_sides_and_the_differences(process_py):
    result = cli(
        "analyze",
        process_py,
        "--function",
        "process",
        "--call",
        "float32[3]",
        "--call",
        "float32[4]",
        "--call",
        "float32[5]",
        "--compare",
        "reduce_retracing",
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "a: reduce_retracing=off" in out and "b: reduce_retracing=on" in out
    assert "differences (" in out
    # 3 shapes: 3 traces by default; reduce_retracing generalises at the second and reuses it.
    assert "tracing_count  process: a 3, b 2" in out
    assert "retraced       process call #2: a True, b False" in out


def test_compare_tf_runs_side_b_on_that_version(process_py, extra):
    default = json.loads(cli("versions", "--json").stdout)["default"]
    result = cli(
        "analyze",
        process_py,
        "--function",
        "process",
        "--call",
        "float32[3]",
        "--compare",
        f"tf={extra.version}",
        "--json",
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    compared = json.loads(result.stdout)["compare"]
    assert compared["a"]["tensorflow_version"] == default
    assert compared["b"]["tensorflow_version"] == extra.version


def test_compare_tf_not_installed_exits_2_naming_the_installed(process_py):
    default = json.loads(cli("versions", "--json").stdout)["default"]
    result = cli(
        "analyze", process_py, "--function", "process", "--call", "float32[3]", "--compare", "tf=2.99.0"
    )
    assert result.returncode == 2 and result.stdout == ""
    line = result.stderr.strip()
    assert "2.99.0" in line and default in line and len(line.splitlines()) == 1
