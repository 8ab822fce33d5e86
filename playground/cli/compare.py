"""`analyze ... --compare SPEC`: runs side a (the flags as given) and side b (SPEC changed), prints
both and their differences. Exit status as analyze's: 2 bad flags, 1 either side raised or
stopped, 0 both completed."""

from __future__ import annotations

import argparse
import sys

from ..contract.config import Settings
from ..contract.errors import PlaygroundError, SpecError
from ..contract.i18n import _
from ..contract.job import Job
from ..reports import compare
from ..reports.safe_text import terminal_text
from .execute import execute
from .render_compare import render

USAGE_ERROR, REPORT_ERROR = 2, 1


def jobs(args: argparse.Namespace, job: Job, config: Settings) -> tuple[compare.CompareSpec, Job]:
    spec = compare.parse(args.compare)
    if args.export:
        raise SpecError(_("--compare and --export cannot be combined: export one side at a time"))
    if spec.kind == "tf" and args.in_process:
        raise SpecError(
            _(
                "--compare {spec} needs the sandbox: --in-process runs this interpreter's TensorFlow only"
            ).format(spec=spec)
        )
    return spec, compare.plan(spec, job, config)


def run_compare(args: argparse.Namespace, job: Job, config: Settings) -> int:
    try:
        spec, job_b = jobs(args, job, config)
    except PlaygroundError as e:
        print(f"error: {terminal_text(e)}", file=sys.stderr)
        return USAGE_ERROR
    # Two cold local workers run side by side; in-process TF and Ray clients go one at a time.
    concurrent = config.executor == "local" and not args.in_process
    try:
        a, b = compare.run_sides(
            lambda j: execute(j, config, in_process=args.in_process), job, job_b, concurrent=concurrent
        )
    except PlaygroundError as e:
        print(f"error: {terminal_text(e)}", file=sys.stderr)
        return REPORT_ERROR
    comparison = compare.compare(spec, job, job_b, a, b)
    print(comparison.to_json(indent=1) if args.json else render(comparison))
    return 0 if comparison.status_ok else REPORT_ERROR
