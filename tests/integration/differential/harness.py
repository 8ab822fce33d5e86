"""Runs one snippet twice, as `python file.py` and through the playground's sandbox (the app's
warm pool, or `python -m playground analyze FILE --json`), and reduces each run to what must agree: the outcome, the printed lines, and every
module-level tf.function's tracing count.

The plain run is untouched: the tracing counts come from an atexit hook in a sitecustomize
module on PYTHONPATH, which writes them to a file of its own, after the script (and after an
uncaught exception's traceback).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playground.contract.job import Job, to_dict

ROOT = Path(__file__).resolve().parents[3]
SNIPPETS = Path(__file__).resolve().parent / "snippets"
TIMEOUT_S = 120

_SITECUSTOMIZE = """
import atexit, json, os, sys

def _tracing_counts():
    tf = sys.modules.get("tensorflow")
    main = sys.modules.get("__main__")
    if tf is None or main is None:
        counts = {}
    else:
        kind = tf.types.experimental.PolymorphicFunction
        counts = {name: int(value.experimental_get_tracing_count())
                  for name, value in list(vars(main).items()) if isinstance(value, kind)}
    with open(os.environ["DIFFERENTIAL_COUNTS"], "w") as f:
        json.dump(counts, f)

atexit.register(_tracing_counts)
"""


@dataclass(frozen=True)
class Story:
    """What a run of a script tells: how it ended, what it printed, how often each traced."""

    outcome: str  # "ok", or the uncaught exception's class name
    lines: list[str]
    counts: dict[str, int] = field(default_factory=dict)
    raw: str = ""  # the unmasked output, for the failure message


def snippets() -> list[Path]:
    return sorted(SNIPPETS.glob("[0-9][0-9]_*.py"))


# C's stdout line-buffered, as in a terminal: TF's C++ printf (the placer's device placement
# log) then lands among Python's prints in the order they happened, as the playground shows it.
_LINE_BUFFERED = ["stdbuf", "-oL"] if shutil.which("stdbuf") else []


def plain_environment(**extra: str) -> dict[str, str]:
    """The environment of a plain run: a person's shell, with one setting of the sandbox's own.
    The sandbox turns oneDNN off (docs/differences.md says why); plain TF turns it on by itself
    on CPUs with AVX512-VNNI or BF16, and its rewrites (`_MklMatMul`) then show in placement logs
    and in the last digits of floats. The reference turns it off too, so that the comparison
    holds on every machine."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", TF_ENABLE_ONEDNN_OPTS="0", **extra)
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # as a person's shell has it
    return env


def run_plain(path: Path) -> Story:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "sitecustomize.py").write_text(_SITECUSTOMIZE)
        counts_file = Path(tmp, "counts.json")
        env = plain_environment(PYTHONPATH=tmp, DIFFERENTIAL_COUNTS=str(counts_file))
        done = subprocess.run(
            [*_LINE_BUFFERED, sys.executable, str(path)],
            cwd=tmp,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=TIMEOUT_S,
        )
        counts = json.loads(counts_file.read_text()) if counts_file.exists() else {}
    text = done.stdout.decode("utf-8", "replace")
    if done.returncode == 0:
        printed, outcome = text, "ok"
    else:
        printed, exception = split_traceback(text)
        outcome = exception or f"exit {done.returncode}"
    return Story(outcome, visible_lines(printed), counts, text)


def run_cli(path: Path) -> Story:
    """`python -m playground analyze FILE --json`: a cold sandboxed worker, as a person runs it."""
    env = dict(os.environ)
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "playground",
            "analyze",
            str(path),
            "--json",
            "--timeout",
            str(TIMEOUT_S - 20),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=TIMEOUT_S,
    )
    return story_of(json.loads(done.stdout))


def run_pool(pool: Any, path: Path) -> Story:
    """The same job through the app's warm pool (a worker forked from a zygote)."""
    job = Job(source=path.read_text(), function=None, timeout_s=TIMEOUT_S - 20, filename=path.name)
    return story_of(to_dict(pool.submit(job)))


def story_of(report: dict) -> Story:
    error = report.get("error")
    if report["status"] == "ok":
        outcome = "ok"
    elif report["status"] == "error" and error:
        outcome = error["type"]
    else:
        outcome = f"{report['status']}: {report.get('message')}"
    counts = {name: f["tracing_count"] for f in report["functions"] for name in f.get("global_names", [])}
    return Story(outcome, visible_lines(report["stdout"]), counts, report["stdout"])


_TRACEBACK = "Traceback (most recent call last):"


def split_traceback(text: str) -> tuple[str, str]:
    """(what the script printed, the uncaught exception's class name) from the output of a
    plain run that failed: Python prints the traceback last, chained ones before it, and the
    exception's `module.Name: message` line is the first unindented line after the frames."""
    lines = text.splitlines(True)
    starts = [i for i, line in enumerate(lines) if line.startswith(_TRACEBACK)]
    if not starts:
        return text, ""
    exception = ""
    for line in lines[starts[-1] + 1 :]:
        if line.strip() and not line.startswith((" ", "\t")):
            exception = re.split(r"[:\s]", line, maxsplit=1)[0].rsplit(".", 1)[-1]
            break
    return "".join(lines[: starts[0]]), exception


# C++ log lines (absl, with or without a date) and absl's note about them: their level
# and their number depend on TF_CPP_MIN_LOG_LEVEL and on the machine, not on the script.
_LOG_LINE = re.compile(
    r"^([IWEF]\d{4} \d\d:\d\d:[\d.]+\s+\d+ \S+:\d+\]|"
    r"\d{4}-\d\d-\d\d \d\d:\d\d:[\d.]+: [IWEF] |"
    r"WARNING: All log messages before absl::InitializeLog\(\)|"
    r"To enable the following instructions: .* rebuild TensorFlow)"
)


def visible_lines(text: str) -> list[str]:
    """The printed lines, in order, with only what differs between two runs of the same
    script masked: memory addresses, file paths, graph-unique name suffixes."""
    return [mask(line) for line in text.splitlines() if line.strip() and not _LOG_LINE.match(line)]


def mask(line: str) -> str:
    line = re.sub(r"0x[0-9a-fA-F]+", "0x?", line)
    line = re.sub(r'File "[^"]*?([^/"]+)"', r'File "\1"', line)
    line = re.sub(r"(?<![\w.])/[\w.\-]+(/[\w.\-<>]+)+", "<path>", line)
    line = re.sub(r"[\w.\-]*site-packages/[\w./\-]+", "<path>", line)
    line = re.sub(r"\b([A-Za-z][\w/]*?)_\d+(:\d+)", r"\1\2", line)  # 'add_3:0' -> 'add:0'
    line = re.sub(r"(__inference_\w+?)_\d+\b", r"\1", line)
    line = re.sub(r"(\{\{function_node [\w/]+?)_\d+\}\}", r"\1}}", line)
    return line.rstrip()
