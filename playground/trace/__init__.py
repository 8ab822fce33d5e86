"""Trace mode for real programs, in the user's own process: `python -m playground trace
PROGRAM.py [ARGS...]` (or `tf-playground trace`), and `with playground.watch("report.html"):`
around a block. Both write a self-contained HTML report and the Report as JSON, and say one
line on stderr. The observing is engine/watch.py's; this package runs, adds the fix list
(reports/fix_list.py) and writes.

TensorFlow loads here only when a watch starts, so `import playground` stays light.
"""

from __future__ import annotations

import dataclasses
import os
import runpy
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from ..contract import i18n
from ..contract.i18n import _
from ..contract.job import Report
from ..reports import fix_list

DEFAULT_HTML = "tf-playground-report.html"


@contextmanager
def watch(
    html: str | os.PathLike | None = DEFAULT_HTML,
    json: str | os.PathLike | bool = True,
    *,
    root: str | os.PathLike | None = None,
    language: str | None = None,
    announce: TextIO | None = sys.stderr,
    cells: bool = False,
) -> Iterator[Any]:
    """Records every tf.function the block makes or calls, and writes the report when the block
    ends, also when it raises. html: where to write the page (None: not at all); json: a path,
    True for the html's name with .json, False for none. root: the folder whose .py files are
    yours (default: the current directory), and with `cells` a notebook's cells too. The
    yielded object's `.report` is the Report."""
    _quiet_tf_logs_as_tf_sets_them()
    from ..engine.watch import watching

    json_path = json_beside(html) if json is True else None if json is False else json
    watched = None
    with i18n.using(language or i18n.current()):
        try:
            with watching(str(root or os.getcwd()), cells=cells) as watched:
                yield watched
        finally:
            if watched is not None and watched.report is not None:
                watched.report = finish(watched.report, html, json_path, language, announce)


def finish(
    report: Report,
    html: str | os.PathLike | None,
    json: str | os.PathLike | None,
    language: str | None,
    announce: TextIO | None,
) -> Report:
    """The end of every watch: the fix list added, the HTML and JSON written, the one line said,
    all in the report's language. Returns the report with its fixes."""
    with i18n.using(language or i18n.current()):
        report = with_fixes(report)
        written = write(report, html, json)
        if announce is not None:
            print(announce_line(report, written), file=announce)
    return report


def write(report: Report, html: str | os.PathLike | None, json: str | os.PathLike | None) -> list[str]:
    """Writes the HTML and JSON reports, in the current language; returns the paths written."""
    from ..reports import html_report

    written = []
    if html is not None:
        Path(html).write_text(html_report.render(report), encoding="utf-8")
        written.append(str(html))
    if json is not None:
        Path(json).write_text(report.to_json(indent=1), encoding="utf-8")
        written.append(str(json))
    return written


def with_fixes(report: Report) -> Report:
    """The report with its fix list: one entry per function and cause of its retraces."""
    return dataclasses.replace(report, warnings=fix_list.fixes(report.functions + report.library_functions))


def json_beside(html: str | os.PathLike | None) -> str | None:
    return str(Path(html).with_suffix(".json")) if html is not None else None


def announce_line(report: Report, written: list[str]) -> str:
    """The one line on stderr at the end: the counts, the first fix, where the report is."""
    text = f"tf-playground: {report.message}"
    if report.warnings:
        text += _("; {n} to fix, first: {fix}").format(n=len(report.warnings), fix=report.warnings[0].message)
    if written:
        text += _("; report: {paths}").format(paths=", ".join(written))
    return text


def run_program(
    program: str, args: list[str], html: str | None, json: str | None, language: str | None
) -> int:
    """Runs PROGRAM as `python PROGRAM ARGS` would (as __main__, its folder first on sys.path,
    sys.argv its own) under a watch; returns its exit status, and prints an uncaught
    exception's traceback as Python would."""
    path = os.path.abspath(program)
    folder = os.path.dirname(path)
    _quiet_tf_logs_as_tf_sets_them()
    from ..engine.watch import watching

    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv, sys.path[0:0] = [program, *args], [folder]
    status = 0
    watched = None
    try:
        with i18n.using(language or i18n.current()), watching(folder, path) as watched:
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    except BaseException as e:  # noqa: BLE001 - the program's own: printed as Python prints it
        sys.excepthook(type(e), e.with_traceback(_users_part(e.__traceback__)), e.__traceback__)
        status = 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    if watched is not None and watched.report is not None:
        finish(watched.report, html, json, language, sys.stderr)
    return status


def _users_part(tb: TracebackType | None) -> TracebackType | None:
    """The traceback from the program's first frame, as `python PROGRAM.py` prints it: without
    this module's and runpy's frames under it."""
    while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__, "<frozen runpy>"):
        tb = tb.tb_next
    return tb


def _quiet_tf_logs_as_tf_sets_them() -> None:
    """The engine quiets TF's C++ info lines for the sandbox's reports; a program traced in its
    own process keeps TF's own default (0), unless the user set one."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0")
