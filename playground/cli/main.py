"""The headless CLI: `python -m playground analyze SOURCE ...` prints a report as text or JSON.

Exit status: 0 the analysis completed with no user error; 1 a report came back but the user's
code raised or the run was stopped; 2 bad flags or spec syntax (one line on stderr).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence

from .. import gallery
from ..contract import i18n, job_request, options, versions
from ..contract.config import Settings
from ..contract.config import settings as load_settings
from ..contract.errors import PlaygroundError, SourceError, SpecError
from ..contract.i18n import _
from ..contract.job import Job, Report
from ..contract.job_request import JobRequest
from ..contract.source_text import check_text
from ..reports.safe_text import terminal_text
from .execute import execute
from .render_text import render

USAGE_ERROR, REPORT_ERROR = 2, 1


def language_parser() -> argparse.ArgumentParser:
    """--lang alone: read before the full parser, whose help texts are in that language."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(
        "--lang",
        metavar="LANG",
        default=None,
        help=_("language of the text output: en or zh (default: from LANG)"),
    )
    return parser


def cli_language(argv: Sequence[str], environ: dict | None = None) -> str:
    """--lang, else the terminal's LANGUAGE/LC_ALL/LC_MESSAGES/LANG, else English."""
    known, _rest = language_parser().parse_known_args(list(argv))
    return i18n.choose(known.lang, i18n.from_environment(os.environ if environ is None else environ))


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The flags of one run, shared by `analyze` and the notebook magic (%%tf_playground)."""
    parser.add_argument(
        "--function",
        metavar="ENTRY",
        help=_("function name or expression such as Counter().increment; omit to run the file as a script"),
    )
    parser.add_argument(
        "--call",
        action="append",
        default=[],
        metavar="ARGS",
        help=_('one call, e.g. "float32[2,3], n=2"; repeat for a sequence'),
    )
    for row in options.OPTIONS:  # the run's options, from their table
        _add_option(parser, row)
    parser.add_argument(
        "--compare",
        metavar="SPEC",
        help=_(
            "run twice, side b changed by SPEC: tf=VERSION, reduce_retracing, "
            'jit_compile or "signature=float32[None]"; shows both and what '
            "differs"
        ),
    )
    parser.add_argument(
        "--tf",
        metavar="VERSION",
        default="",
        help=_("run on this installed TensorFlow version (see `versions`)"),
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help=_(
            "run on a hosted playground (its HTTP API) instead of a local "
            "sandbox, e.g. https://play.example.org; needs neither "
            "TensorFlow nor bubblewrap here"
        ),
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        default=os.environ.get("PLAYGROUND_API_TOKEN", ""),
        help=_("with --server: the API token the operator gave you (default: PLAYGROUND_API_TOKEN)"),
    )


def _add_option(parser: argparse.ArgumentParser, row: options.Option) -> None:
    help_text = _(row.help) if row.help else None
    if row.kind is bool:
        parser.add_argument(*row.flags, action="store_true", dest=row.name, help=help_text)
        return
    parser.add_argument(
        *row.flags,
        dest=row.name,
        type=row.kind,
        default=row.default,
        metavar=row.metavar,
        choices=row.choices or None,
        help=help_text,
    )


def build_parser() -> argparse.ArgumentParser:
    lang = [language_parser()]
    parser = argparse.ArgumentParser(
        prog="python -m playground", description=_("See what tf.function and AutoGraph do to code.")
    )
    commands = parser.add_subparsers(dest="command", required=True)
    analyze = commands.add_parser("analyze", parents=lang, help=_("trace, convert and inspect a function"))
    analyze.add_argument("source", help=_("a .py file, or - for stdin"))
    add_run_options(analyze)
    analyze.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help=_("wall-clock limit (default 30, PLAYGROUND_TIMEOUT_S)"),
    )
    analyze.add_argument(
        "--export",
        metavar="DIR",
        help=_(
            "save the entry function as a SavedModel in DIR (with a "
            "TensorBoard graph log in DIR/tensorboard), verified by reloading "
            "it in a fresh worker"
        ),
    )
    analyze.add_argument("--json", action="store_true", help=_("print one JSON object"))
    analyze.add_argument(
        "--in-process",
        action="store_true",
        help=_("run without the sandbox (trusted code only; for debugging)"),
    )
    trace = commands.add_parser(
        "trace",
        parents=lang,
        help=_("run a whole program here, as python would, and report every tf.function trace"),
    )
    trace.add_argument("--html", default="tf-playground-report.html", help=_("the report page to write"))
    trace.add_argument("--json", default=None, help=_("the report as JSON (default: beside the page)"))
    trace.add_argument("program", help=_("the program to run, e.g. train.py"))
    trace.add_argument("args", nargs=argparse.REMAINDER, help=_("its own arguments"))
    example = commands.add_parser(
        "example", parents=lang, help=_("print a gallery example's source and flags")
    )
    example.add_argument("slug", nargs="?", help=_("omit to list the examples"))
    listing = commands.add_parser("versions", parents=lang, help=_("list the installed TensorFlow versions"))
    listing.add_argument("--json", action="store_true", help=_("print one JSON object"))
    table = commands.add_parser(
        "claims", parents=lang, help=_("check every gallery claim on every installed TensorFlow version")
    )
    table.add_argument("--json", action="store_true", help=_("print the table as one JSON object"))
    table.add_argument("--markdown", action="store_true", help=_("print the README's table"))
    table.add_argument(
        "--example",
        action="append",
        default=[],
        metavar="SLUG",
        help=_("only this example (repeat for more)"),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except BrokenPipeError:  # `... | head` stopped reading: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return REPORT_ERROR


def run(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    language = i18n.use(cli_language(argv))
    args = build_parser().parse_args(argv)
    if args.command == "example":
        return show_example(args.slug)
    if args.command == "trace":
        from ..trace import json_beside, run_program

        return run_program(args.program, args.args, args.html, args.json or json_beside(args.html), language)
    if args.command == "analyze" and args.server:
        return run_remote(args, language)
    config = load_settings()
    if args.command == "versions":
        return show_versions(config, args.json)
    if args.command == "claims":
        return show_claims(config, args)
    try:
        job = dataclasses.replace(job_from_args(args, config), language=language)
    except (PlaygroundError, OSError) as e:
        print(_("error: {message}").format(message=terminal_text(e)), file=sys.stderr)
        return USAGE_ERROR
    if args.compare is not None:
        from .compare import run_compare

        return run_compare(args, job, config)
    try:
        report = execute(job, config, in_process=args.in_process)
    except PlaygroundError as e:
        print(_("error: {message}").format(message=terminal_text(e)), file=sys.stderr)
        return REPORT_ERROR
    if args.export:
        report = save_export(report, args.export)
    print(report.to_json(indent=1) if args.json else render(report))
    exported = not args.export or (report.export is not None and report.export.verified)
    return 0 if report.status == "ok" and exported else REPORT_ERROR


def run_remote(args: argparse.Namespace, language: str) -> int:
    """--server: the same output and exit status as a local run, from the server's report."""
    from ..reports.compare import Comparison
    from . import remote
    from .render_compare import render as render_comparison

    if args.export or args.in_process:
        print(
            _("error: --server runs on the server's sandbox: --export and --in-process are local only"),
            file=sys.stderr,
        )
        return USAGE_ERROR
    try:
        request = dataclasses.replace(request_from_args(args), language=language)
        answer = remote.analyze(args.server, request, token=args.token)
    except SpecError as e:
        print(_("error: {message}").format(message=terminal_text(e)), file=sys.stderr)
        return USAGE_ERROR
    except (PlaygroundError, OSError) as e:
        print(_("error: {message}").format(message=terminal_text(e)), file=sys.stderr)
        return REPORT_ERROR
    share = answer.pop("share_url", "")
    if share:
        print(_("share: {url}").format(url=share), file=sys.stderr)
    if "compare" in answer:
        comparison = Comparison.from_json(json.dumps(answer))
        print(comparison.to_json(indent=1) if args.json else render_comparison(comparison))
        return 0 if comparison.status_ok else REPORT_ERROR
    report = Report.from_json(json.dumps(answer))
    print(report.to_json(indent=1) if args.json else render(report))
    return 0 if report.status == "ok" else REPORT_ERROR


def request_from_args(args: argparse.Namespace, source: str | None = None, filename: str = "") -> JobRequest:
    """The run's flags as a request (the HTTP API's body has the same fields); the source is the
    file the flags name unless a front-end without one (the notebook magic) gives its own."""
    if source is None:
        source = read_source(args.source)
        filename = "<stdin>.py" if args.source == "-" else args.source.rsplit("/", 1)[-1]
    return JobRequest(
        source=source,
        function=args.function,
        calls=tuple(args.call),
        timeout_s=vars(args).get("timeout"),  # analyze's own
        **{name: getattr(args, name) for name in options.NAMES},
        tf_version=args.tf,
        compare=args.compare,
        filename=filename or JobRequest.filename,
    )


def job_from_args(args: argparse.Namespace, config: Settings) -> Job:
    """Checked before any worker starts: exit 2 for a bad spec or a missing version."""
    request = request_from_args(args)
    try:
        job = dataclasses.replace(job_request.to_job(request, config), export=bool(args.export))
    except job_request.FieldError as error:  # a call's error names the call
        raise job_request.FieldError(error.field, job_request.described(error, request.calls)) from None
    if args.in_process and job.tf_version:
        raise versions.VersionError(
            _("--in-process runs this interpreter's TensorFlow; --tf {version} needs the sandbox").format(
                version=args.tf
            )
        )
    return job


def read_source(path: str) -> str:
    """The file (or stdin) as UTF-8 text; anything else is the user's error, named."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
        source = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(
            _("{path}: not UTF-8 text (byte {byte}); save it as UTF-8").format(path=path, byte=e.start)
        ) from None
    check_text(source)
    return source


def save_export(report: Report, target: str) -> Report:
    """Moves the verified SavedModel to DIR (its TensorBoard log to DIR/tensorboard)."""
    export = report.export
    if export is None or not export.path or not os.path.isdir(os.path.join(export.path, "savedmodel")):
        return report
    if os.path.exists(target) and os.listdir(target):
        print(
            _("error: --export {target}: the directory is not empty; nothing written").format(target=target),
            file=sys.stderr,
        )
        shutil.rmtree(export.path, ignore_errors=True)
        return dataclasses.replace(report, export=dataclasses.replace(export, path=""))
    shutil.copytree(os.path.join(export.path, "savedmodel"), target, dirs_exist_ok=True)
    if os.path.isdir(os.path.join(export.path, "tensorboard")):
        shutil.copytree(os.path.join(export.path, "tensorboard"), os.path.join(target, "tensorboard"))
    shutil.rmtree(export.path, ignore_errors=True)
    return dataclasses.replace(report, export=dataclasses.replace(export, path=os.path.abspath(target)))


def show_versions(config: Settings, as_json: bool) -> int:
    installed = versions.installed(config)
    if as_json:
        print(
            json.dumps(
                {"default": installed[0].version, "versions": [dataclasses.asdict(v) for v in installed]},
                indent=1,
            )
        )
        return 0
    for v in installed:
        print(f"{v.version:10} {v.python}" + ("  " + _("(default)") if v.default else ""))
    return 0


def show_claims(config: Settings, args: argparse.Namespace) -> int:
    from ..reports import claims
    from ..sandbox.versioned import VersionedPool

    unknown = [s for s in args.example if s not in gallery.BY_SLUG]
    if unknown:
        print(
            f"error: no example {unknown[0]!r}; run `python -m playground example` for the list",
            file=sys.stderr,
        )
        return USAGE_ERROR
    examples = [gallery.BY_SLUG[s] for s in args.example] or None
    with VersionedPool(config) as pool:
        table = claims.measure(pool.submit, versions.installed(config), examples)
    table = dataclasses.replace(table, measured_on=time.strftime("%Y-%m-%d", time.gmtime()))
    print(
        table.to_json(indent=1)
        if args.json
        else claims.render_markdown(table)
        if args.markdown
        else claims.render_text(table)
    )
    return 0


def show_example(slug: str | None) -> int:
    if slug is None:
        for e in gallery.EXAMPLES:
            print(f"{e.slug:28} {_(e.title)}")
        return 0
    example = gallery.BY_SLUG.get(slug)
    if example is None:
        print(
            _("error: no example {slug}; run `python -m playground example` for the list").format(
                slug=repr(slug)
            ),
            file=sys.stderr,
        )
        return USAGE_ERROR
    flags = [f"--function {example.function}"] if example.function else []
    flags += [f'--call "{c}"' for c in example.calls]
    flags += [f'--signature "{example.signature}"'] if example.signature else []
    flags += ["--reduce-retracing"] if example.reduce_retracing else []
    flags += ["--jit-compile"] if example.jit_compile else []
    print(example.source, end="")
    print(f"# python -m playground analyze {slug}.py {' '.join(flags)}".rstrip())
    return 0
