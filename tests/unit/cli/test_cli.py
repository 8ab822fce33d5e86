"""The CLI contract outside tests rely on: flags, exit status, JSON fields and the text summary."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_support import PROCESS, cli, process_py  # noqa: F401 - process_py: fixture
from repo_paths import ROOT

REQUIRED = {"tensorflow_version", "device", "status", "error", "stdout", "warnings", "functions"}
FUNCTION_FIELDS = {
    "name",
    "tracing_count",
    "calls",
    "concrete_signatures",
    "converted_code",
    "graph",
    "hlo",
    "timing",
}


@pytest.mark.parametrize(
    "flags, named",
    [
        (["--call", "flaot32[3]"], "unknown dtype 'flaot32' in 'flaot32[3]' (did you mean float32?)"),
        (["--call", "float32[3,x]"], "malformed dim 'x' in 'float32[3,x]'"),
        (["--signature", "float32[None"], "unclosed bracket"),
        (["--call", "float32[100000,100000]"], "over the cap"),
    ],
)
def test_bad_specs_exit_2_with_one_line_naming_the_text(process_py, flags, named):
    result = cli("analyze", process_py, "--function", "process", *flags)
    assert result.returncode == 2
    assert result.stdout == ""
    assert named in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unknown_flag_and_missing_file_exit_2(tmp_path):
    assert cli("analyze", "x.py", "--bogus").returncode == 2
    missing = cli("analyze", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "nope.py" in missing.stderr


def test_json_report_has_the_fixed_fields(process_py):
    result = cli(
        "analyze",
        process_py,
        "--function",
        "process",
        "--call",
        "float32[3]",
        "--call",
        "float32[3]",
        "--call",
        "float32[2]",
        "--json",
        "--in-process",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert REQUIRED <= report.keys()
    assert report["status"] == "ok" and report["tensorflow_version"] == "2.21.0"
    (f,) = report["functions"]
    assert FUNCTION_FIELDS <= f.keys()
    assert f["tracing_count"] == 2
    assert [c["reason"] for c in f["calls"]] == ["first call", None, "x: shape (3,) -> (2,)"]
    assert {"op_count", "op_count_optimized", "op_types"} <= f["graph"].keys()
    assert [w["code"] for w in report["warnings"]] == ["print-at-trace"]
    assert {"index", "retraced", "reason", "stdout", "output", "error"} <= f["calls"][0].keys()


def test_user_error_exits_1_and_reports_the_line(process_py):
    result = cli("analyze", process_py, "--function", "process", "--call", "None", "--json", "--in-process")
    assert result.returncode == 1
    call = json.loads(result.stdout)["functions"][0]["calls"][0]
    shape_line = 1 + next(i for i, line in enumerate(PROCESS.splitlines()) if "x.shape" in line)
    assert call["error"]["type"] == "AttributeError" and call["error"]["line"] == shape_line, call


def test_a_call_that_does_not_fit_the_function_is_refused_before_it_runs(process_py):
    result = cli(
        "analyze", process_py, "--function", "process", "--call", "float32[3]", "--call", "float32[3], 2"
    )
    assert result.returncode == 2 and not result.stdout
    assert (
        "Call 2 ('float32[3], 2'): process takes x; this call passes 2 positional argument(s)"
        in result.stderr
    )


def test_stdin_script_mode_and_text_summary():
    source = PROCESS + "\nprocess(tf.constant([1.0]))\nprocess(tf.constant([1.0, 2.0]))\n"
    result = cli("analyze", "-", "--in-process", stdin=source)
    assert result.returncode == 0, result.stderr
    assert "process: 2 trace(s) in 2 call(s)" in result.stdout
    assert "TRACED  because x: shape (1,) -> (2,)" in result.stdout
    assert "[print-at-trace]" in result.stdout


def test_example_command_lists_and_prints_runnable_examples():
    listing = cli("example")
    assert listing.returncode == 0 and listing.stdout.startswith("retracing")
    shown = cli("example", "retracing")
    assert "def process(x):" in shown.stdout
    assert '--call "float32[3]" --call "float32[3]" --call "float32[2]"' in shown.stdout
    assert cli("example", "nope").returncode == 2


def test_default_path_runs_in_the_sandbox(process_py):
    sandbox = pytest.importorskip("playground.sandbox")
    assert hasattr(sandbox, "run_once")
    result = cli("analyze", process_py, "--function", "process", "--call", "float32[3]", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["sandbox"]["isolation"] in ("bubblewrap", "process")
    assert report["functions"][0]["tracing_count"] == 1


@pytest.mark.parametrize(
    "data, named",
    [
        (b"def f(x):\n    return x\x00\n", "null byte on line 2"),
        (b"\xff\xfe def f(x): pass\n", "not UTF-8 text (byte 0)"),
    ],
)
def test_source_that_is_not_text_exits_2_naming_it(data, named):
    result = subprocess.run(
        [sys.executable, "-m", "playground", "analyze", "-", "--function", "f"],
        cwd=ROOT,
        input=data,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert named in result.stderr.decode() and b"Traceback" not in result.stderr
