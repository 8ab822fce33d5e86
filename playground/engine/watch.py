"""Trace mode: a whole program, in the user's own process and environment (their data, their
modules, their GPU, no sandbox and no time limit), observed through TF's own Function class as
script mode observes a pasted file (observe.py). Every tf.function the program makes, the
user's and the libraries', with each trace's reason and the user's line that caused it.

Each function lists only the calls that traced or raised and counts the others (two counter
reads per call), so a 10,000-step training loop costs what a few records cost. The report is
built when the block ends, however it ends. It imports none of the views' modules (describe,
graphs, timing): the user's program runs in this process.
"""

from __future__ import annotations

import dataclasses
import linecache
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import tensorflow as tf

from ..contract.i18n import _
from ..contract.job import (
    MAX_CITED_CHARS,
    MAX_CITED_LINES,
    ErrorInfo,
    FunctionReport,
    Report,
    SourceLine,
    TraceRun,
)
from . import compat, makers, observe, script_env
from .capture import NoCapture
from .source import error_info
from .summary import made_by_libraries
from .tracing import TrackedFunction, bare_report

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # playground/ itself


class Watch:
    """One watched block: the observer, and the report once the block has ended."""

    def __init__(self, root: str, cells: bool = False) -> None:
        self.users = makers.UserFiles.under(root, (_PACKAGE, sys.prefix, sys.base_prefix), cells)
        self.root = os.path.realpath(root)  # the users' names of files are relative to it
        self.observer = observe.Observer(self.make_tracked, self.users, adopt=True)
        self.report: Report | None = None
        self._started = time.perf_counter()

    def make_tracked(
        self, fn: Any, name: str, python_function: Callable, options: dict, **made: Any
    ) -> TrackedFunction:
        return TrackedFunction(
            fn, name, python_function, capture=NoCapture(), filename="", options=options,
            users=self.users, quiet=True, **made,
        )  # fmt: skip

    def finish(self, error: BaseException | None, retrace_log: list[str], main_file: str = "") -> Report:
        tracked, _names = observe.outcome(self.observer, {}, error)  # no module namespace here
        reports = [_function_report(t, retrace_log) for t in tracked]
        users = [r for r in reports if not r.maker]
        made = [r for r in reports if r.maker]
        info = _error(error, main_file)
        self.report = Report(
            tensorflow_version=tf.__version__,
            device="GPU" if _gpus() else "CPU",
            status="ok" if info is None else "error",
            error=info,
            stdout="",
            warnings=[],  # the fix list is the caller's (playground/trace)
            functions=users,
            library_functions=made,
            message=summary_line(users, made),
            duration_s=time.perf_counter() - self._started,
            environment={"python": sys.version.split()[0], "mode": "trace"},
        )
        program = self.users.name(main_file) if main_file else ""
        self.report = dataclasses.replace(
            self.report, trace=TraceRun(program, cited_lines(self.report, program, self.read_line))
        )
        return self.report

    def read_line(self, file: str, line: int) -> str | None:
        """A line of one of the user's files, by the report's name for it; None if unreadable."""
        text = linecache.getline(os.path.join(self.root, file), line)
        return text.rstrip()[:MAX_CITED_CHARS] if text else None


@contextmanager
def watching(root: str, main_file: str = "", cells: bool = False) -> Iterator[Watch]:
    """Observes the block; `root`: the folder whose files are the user's (and a notebook's
    cells, with `cells`). The report is on the Watch afterwards, also when the block raised
    (the exception goes on)."""
    watch = Watch(root, cells)
    error: BaseException | None = None
    with observe.observing(watch.observer), script_env.retracing_warnings() as retrace_log:
        try:
            yield watch
        except SystemExit as e:
            error = e if e.code not in (None, 0, False) else None
            raise
        except BaseException as e:
            error = e
            raise
        finally:
            watch.finish(error, retrace_log, main_file)


def cited_sites(report: Report, program: str) -> list[tuple[str, int]]:
    """(file, line) of every place the report names, most telling first: where the program
    raised, where each function was made, each listed call's site, the frames above it."""
    sites: list[str] = []
    if report.error is not None and report.error.line and program:
        sites.append(f"{program}:{report.error.line}")
    everything = report.functions + report.library_functions
    sites += [f.made_site for f in everything]
    sites += [c.site for f in everything for c in f.calls]
    sites += [frame.split(" in ", 1)[0] for f in everything for c in f.calls for frame in c.stack]
    found: list[tuple[str, int]] = []
    for site in sites:
        file, _sep, number = site.rpartition(":")
        if file and number.isdecimal() and (file, int(number)) not in found:
            found.append((file, int(number)))
    return found


def cited_lines(report: Report, program: str, read: Callable[[str, int], str | None]) -> list[SourceLine]:
    """The cited lines' text (`read` gives one, or None), at most MAX_CITED_LINES: a report
    opened elsewhere shows the lines it names without the files."""
    lines = []
    for file, number in cited_sites(report, program):
        text = read(file, number)
        if text is not None:
            lines.append(SourceLine(file, number, text))
        if len(lines) == MAX_CITED_LINES:
            break
    return lines


def summary_line(users: list[FunctionReport], made: list[FunctionReport]) -> str:
    text = _("{functions} function(s) of yours traced {traces} time(s)").format(
        functions=len(users), traces=sum(f.tracing_count for f in users)
    )
    return text + made_by_libraries(made)


def _function_report(tracked: TrackedFunction, retrace_log: list[str]) -> FunctionReport:
    """Its calls and counts, its cache (a graph per trace, with its op count), the time its
    tracing calls took. A failure of ours leaves the calls and counts."""
    report = bare_report(tracked)
    try:
        graphs = compat.concrete_functions(tracked.fn) or []
        return dataclasses.replace(
            report,
            concrete_signatures=tracked.concrete_signatures(),
            trace_ops=[len(cf.graph.get_operations()) for cf in graphs],
            tracing_s=sum(c.duration_s for c in tracked.calls if c.retraced),
            retracing_warnings=tracked.warnings_in(retrace_log),
        )
    except Exception:  # noqa: BLE001 - the counts are the report; the views are extra
        return report


def _error(error: BaseException | None, main_file: str) -> ErrorInfo | None:
    if error is None:
        return None
    if isinstance(error, SystemExit):
        return ErrorInfo("SystemExit", _("the program exited with {code}").format(code=repr(error.code)))
    return error_info(error, main_file)


def _gpus() -> list[Any]:
    try:
        return tf.config.list_physical_devices("GPU")
    except Exception:  # noqa: BLE001 - the device is decoration
        return []
