"""The notebook magics. `%%tf_playground [flags]` runs its cell as the CLI's `analyze` runs a file
(the same flags, parsers and messages) and shows the report inline; `%%tf_playground_watch`
runs a cell as a plain one under trace mode (every tf.function it made or called, Keras's
too); `%tf_playground_explain f` reports on a tf.function the kernel already holds.

The kernel is the user's: the cell runs in this process, in the notebook's own namespace (what it
defines stays defined, as after a plain cell), on the kernel's TensorFlow and devices. The
engine's hooks on TF's Function class live only while the cell runs. With --server URL the cell
goes to a hosted playground's HTTP API instead, and nothing runs here.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import time
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import Pretty, display

from ..cli.execute import require_tensorflow
from ..cli.main import add_run_options, language_parser, request_from_args
from ..contract import i18n, job_request
from ..contract.config import settings as load_settings
from ..contract.errors import PlaygroundError
from ..contract.i18n import _
from ..contract.job import Job, Report
from ..reports import compare
from .view import ComparisonView, ExplanationView, ReportView, TraceView


class _HelpShown(Exception):
    """-h printed the flags; the magic stops there."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag as IPython's one-line UsageError, never exits the kernel."""

    def error(self, message: str) -> Any:
        raise UsageError(f"{self.prog}: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        if message:
            raise UsageError(message)
        raise _HelpShown()


def cell_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="%%tf_playground",
        parents=[language_parser()],
        description=_(
            "Runs the cell as `python -m playground analyze` runs a file, "
            "in this kernel, and shows the report."
        ),
    )
    add_run_options(parser)
    return parser


def explain_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="%tf_playground_explain",
        parents=[language_parser()],
        description=_("What a tf.function in this kernel has traced so far, and why."),
    )
    parser.add_argument("function", help=_("the tf.function, e.g. f or model.call"))
    return parser


def watch_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="%%tf_playground_watch",
        parents=[language_parser()],
        description=_(
            "Runs the cell as a plain cell, in this kernel, and reports every tf.function it "
            "made or called, libraries' too, as `python -m playground trace` does."
        ),
    )
    parser.add_argument("--html", default=None, metavar="PATH", help=_("also write the report page here"))
    return parser


def parse(parser: argparse.ArgumentParser, line: str) -> argparse.Namespace:
    try:
        words = shlex.split(line)
    except ValueError as e:  # an unclosed quote
        raise UsageError(f"{parser.prog}: {e}") from None
    return parser.parse_args(words)


def language_of(args: argparse.Namespace) -> str:
    return i18n.choose(args.lang, i18n.from_environment(os.environ))


class Progress:
    """One line that follows a run that takes a while (queued, each call, timing), cleared at
    the end; a quick run leaves no trace of it in the notebook. Only in a kernel, whose display
    messages bypass stdout: a terminal IPython would print it into the output the run captures."""

    AFTER_S = 1.0

    def __init__(self, live: bool) -> None:
        self.live = live
        self.started = time.monotonic()
        self.handle: Any = None

    def __call__(self, event: dict) -> None:
        text = describe(event) if self.live else ""
        if not text or time.monotonic() - self.started < self.AFTER_S:
            return
        if self.handle is None:
            self.handle = display(Pretty(text), display_id=True)
        else:
            self.handle.update(Pretty(text))

    def clear(self) -> None:
        if self.handle is not None:
            self.handle.update(Pretty(""))


def describe(event: dict) -> str:
    kind = event.get("event")
    if kind == "queued":
        return _("queued: position {position}").format(position=event.get("position", "?"))
    if kind == "call_finished":
        return _("{name}: call {number} {what} ({traces} trace(s) so far)").format(
            name=event.get("function", ""),
            number=int(event.get("index", 0)) + 1,
            what=_("traced") if event.get("retraced") else _("reused graph"),
            traces=event.get("tracing_count", "?"),
        )
    if kind == "timing":
        return _("{name}: timing {mode}").format(name=event.get("function", ""), mode=event.get("mode", ""))
    return ""


def run_cell(args: argparse.Namespace, cell: str, namespace: dict, number: int, live: bool = False) -> Any:
    """The view of the cell's run: here (in `namespace`), or on args.server; `live`: show its
    progress as it goes."""
    language = language_of(args)
    request = dataclasses.replace(
        request_from_args(args, source=cell, filename=f"cell{number}.py"), language=language
    )
    progress = Progress(live)
    with i18n.using(language):
        try:
            if args.server:
                return _remote(args, request, progress)
            return _local(args, request, namespace, progress)
        except PlaygroundError as e:  # a bad spec, a refusal, an unreachable server: one line
            raise UsageError(str(e)) from None
        finally:
            progress.clear()


def _remote(args: argparse.Namespace, request: job_request.JobRequest, progress: Progress) -> Any:
    from ..cli import remote

    answer = remote.analyze(args.server, request, on_event=progress, token=args.token)
    share = answer.pop("share_url", "")
    if "compare" in answer:
        return ComparisonView(
            compare.Comparison.from_json(json.dumps(answer)), request.source, request.language, share
        )
    return ReportView(Report.from_json(json.dumps(answer)), request.source, request.language, share)


def _local(
    args: argparse.Namespace, request: job_request.JobRequest, namespace: dict, progress: Progress
) -> Any:
    if args.tf:
        raise UsageError(
            _(
                "--tf {version}: the magic runs this kernel's TensorFlow; other "
                "versions need a playground server (--server URL)"
            ).format(version=args.tf)
        )
    config = load_settings()
    job = dataclasses.replace(job_request.to_job(request, config), language=request.language)
    require_tensorflow()
    from ..engine.pipeline import analyze

    if args.compare is None:
        return ReportView(analyze(job, progress, namespace), request.source, request.language)
    spec = compare.parse(args.compare)
    if spec.kind == "tf":
        raise UsageError(
            _(
                "--compare {spec}: the magic runs this kernel's TensorFlow only; "
                "compare versions on a playground server (--server URL)"
            ).format(spec=args.compare)
        )
    job_b: Job = compare.plan(spec, job, config)
    a = analyze(job, progress, namespace)
    b = analyze(job_b, progress, dict(namespace))  # side b leaves the notebook as side a left it
    return ComparisonView(compare.compare(spec, job, job_b, a, b), request.source, request.language)


@magics_class
class PlaygroundMagics(Magics):
    @cell_magic
    def tf_playground(self, line: str, cell: str) -> Any:
        try:
            args = parse(cell_parser(), line)
        except _HelpShown:
            return None
        return run_cell(
            args,
            cell,
            self.shell.user_ns,  # type: ignore[union-attr, unused-ignore]  # IPython: a registered magic has its shell
            self.shell.execution_count,  # type: ignore[union-attr, unused-ignore]  # IPython: a registered magic has its shell
            live=getattr(self.shell, "kernel", None) is not None,
        )

    @cell_magic
    def tf_playground_watch(self, line: str, cell: str) -> Any:
        """Trace mode over a cell that trains (`model.fit`, a custom loop): the cell runs as a
        plain one, its output and errors as usual, then the report."""
        try:
            args = parse(watch_parser(), line)
        except _HelpShown:
            return None
        language = language_of(args)
        require_tensorflow()
        from ..trace import watch

        with watch(args.html, json=False, language=language, announce=None, cells=True) as watched:
            self.shell.run_cell(cell)  # type: ignore[union-attr, unused-ignore]  # IPython: a registered magic has its shell
        return TraceView(watched.report, language)

    @line_magic
    def tf_playground_explain(self, line: str) -> Any:
        try:
            args = parse(explain_parser(), line)
        except _HelpShown:
            return None
        language = language_of(args)
        with i18n.using(language):
            try:
                function = self.shell.ev(args.function)  # type: ignore[union-attr, unused-ignore]  # IPython: a registered magic has its shell
            except Exception as e:  # noqa: BLE001 - the user's expression: its error, in one line
                raise UsageError(f"{args.function}: {type(e).__name__}: {e}") from None
            try:
                require_tensorflow()
                from ..engine.explain import explain

                return ExplanationView(explain(function, args.function), language)
            except PlaygroundError as e:
                raise UsageError(str(e)) from None
