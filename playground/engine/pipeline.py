"""The pipeline: one Job through TensorFlow to one Report, as a list of steps. Imports TF.

    1. parse the call plan and the signature, bounded        contract/specs.py
    2. say where it runs (TF version, device), before user code    device.py
    3. load the source as a module (or into a notebook's namespace)    source.py
    4. run it: the entry function's planned calls, or the whole script    execution.py
    5. describe each function: converted code, graph, HLO, timing    describe.py
    6. export the entry function, when asked    export.py
    7. detect pitfalls from the code and what the run observed    pitfalls/
    8. the report: its status and summary    summary.py

A failure in steps 1-6 ends them (execution.py says how it is recorded); 7 and 8 always run, so
the user gets a report with whatever was observed.
"""

from __future__ import annotations

import dataclasses
import time
import types

import tensorflow as tf

from ..contract import i18n, specs
from ..contract.config import settings
from ..contract.errors import PlaygroundError
from ..contract.i18n import _
from ..contract.job import ExportInfo, FunctionReport, Job, Report
from ..contract.protocol import Environment, OnEvent, as_event
from . import compat, frames, pitfalls, script_env, summary
from . import device as devices
from .capture import OutputCapture
from .describe import describe
from .execution import RESOURCE_ERRORS, Execution, Stop, export_entry
from .source import compile_source, error_info, new_module
from .tracing import TrackedFunction, bare_report


def analyze(job: Job, emit: OnEvent | None = None, namespace: dict | None = None) -> Report:
    """Runs the job in this process. Callers that run untrusted code go through the sandbox.

    `namespace`: the globals the source runs in, and keeps what it defines (a notebook's, for
    the %%tf_playground magic); by default a fresh module run as __main__, as `python file.py`."""
    started = time.perf_counter()
    i18n.use(job.language)  # the report's sentences (pitfalls, notes) in the job's language
    if job.verify is not None:
        return verified(job, started)
    config = settings()
    compat.reset()
    capture = OutputCapture(config.output_cap_bytes, clean=frames.clean)
    run = Execution(job, emit or (lambda event: None), capture)
    reports: list[FunctionReport] | None = None
    try:
        plan = [specs.parse_call(c, max_elements=config.max_tensor_elements) for c in job.calls]  # 1
        signature = specs.parse_signature(job.signature or "")
        run.device = devices.select(job.device)  # 2
        run.emit(
            as_event(
                Environment(tf.__version__, devices.describe(run.device), devices.environment(run.device))
            )
        )
        with (
            capture.redirect(),
            devices.placement(run.device),
            script_env.recursion_limit_restored(),
            script_env.retracing_warnings() as retrace_log,
        ):
            code = compile_source(job.source, job.filename)  # 3
            module: types.ModuleType | None
            if namespace is None:
                module = new_module(job.filename, job.source)
                scope = module.__dict__
            else:  # a notebook's namespace: no module of its own
                module, scope = None, namespace
            run.execute(code, module, scope, plan, signature)  # 4
            run.stdout = capture.text()
            plan_log = run.plan_warnings(retrace_log)  # the module's own are in run.module
            reports = [described(run, tracked, plan_log) for tracked in run.tracked]  # 5
            run.export = export_entry(run)  # 6
    except Stop:
        run.stdout = capture.text()
    except PlaygroundError as e:
        run.error = run.error or summary.playground_error(e)
    except RESOURCE_ERRORS as e:
        run.error, run.status = error_info(e, job.filename), "memory"
    finally:
        run.stdout = run.stdout or _safe_text(capture)
        capture.close()
        run.device = devices.effective(run.device)  # the script may have hidden its GPUs
    if reports is None:
        reports = [bare_report(t, run.global_names.get(t)) for t in run.tracked]
    users = [r for r in reports if not r.maker]
    warnings = pitfalls.detect(job.source, users, run.sources())  # 7
    made = [r for r in reports if r.maker]
    return summary.report(run, users, warnings, time.perf_counter() - started, capture.truncated, made)  # 8


def described(run: Execution, tracked: TrackedFunction, retrace_log: list[str]) -> FunctionReport:
    """Step 5 for one function; a failure of ours leaves its calls and counts, with a note."""
    try:
        return describe(run, tracked, retrace_log)
    except RESOURCE_ERRORS:
        raise
    except Exception as e:  # noqa: BLE001 - one function's views must not lose the report
        note = _("This function's views could not be made: {error}").format(error=type(e).__name__)
        return dataclasses.replace(bare_report(tracked, run.global_names.get(tracked)), conversion_note=note)


def verified(job: Job, started: float) -> Report:
    """The second half of an export: reload the attached SavedModel and replay its checks."""
    from .verify import verify

    root = job.attachments.get(job.verify or "", "")
    try:
        info, error = verify(root), None
    except Exception as e:  # noqa: BLE001 - any load error is the verdict
        info = ExportInfo(
            [], False, root, reason=_("The SavedModel did not load: {error}").format(error=type(e).__name__)
        )
        error = error_info(e, job.filename)
    message = (
        _("SavedModel verified: every signature reproduced the run's outputs")
        if info.verified
        else _("SavedModel verification failed")
        if error is None
        else info.reason
    )
    return Report(
        tensorflow_version=tf.__version__,
        device=devices.describe("/CPU:0"),
        status="ok" if error is None else "error",
        error=error,
        stdout="",
        warnings=[],
        functions=[],
        message=message,
        duration_s=time.perf_counter() - started,
        export=info,
    )


def _safe_text(capture: OutputCapture) -> str:
    try:
        return capture.text()
    except (OSError, ValueError):
        return ""
