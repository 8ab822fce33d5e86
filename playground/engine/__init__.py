"""The analysis engine: runs one Job through TensorFlow and returns a Report. Imports TF.

The pipeline reads as a list (see analyze): load the source, resolve the entry, build the
tf.function, run the call plan recording traces, convert the code, inspect the graph, time it,
detect pitfalls. Each step lives in its own module.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import time
import traceback
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # keep C++ info lines out of user output
import tensorflow as tf

from ..contract import i18n, specs
from ..contract.config import settings
from ..contract.errors import PlaygroundError
from ..contract.i18n import _
from ..contract.job import ErrorInfo, ExportInfo, FunctionReport, Job, Report
from . import compat, convert, frames, graphs, observe, pitfalls, script_env, timing
from . import device as devices
from . import export as exporting
from .capture import OutputCapture
from .entry import resolve, source_function, unwrap
from .source import as_main, compile_source, error_info, new_module
from .tracing import Emit, TrackedFunction
from .values import make_args

RESOURCE_ERRORS = (MemoryError, tf.errors.ResourceExhaustedError)


def analyze(job: Job, emit: Emit | None = None, namespace: dict | None = None) -> Report:
    """Runs the job in this process. Callers that run untrusted code go through the sandbox.

    `namespace`: the globals the source runs in, and keeps what it defines (a notebook's, for
    the %%tf_playground magic); by default a fresh module run as __main__, as `python file.py`."""
    emit = emit or (lambda event: None)
    started = time.perf_counter()
    i18n.use(job.language)  # the report's sentences (pitfalls, notes) in the job's language
    if job.verify is not None:
        return _verify(job, started)
    config = settings()
    compat.reset()
    capture = OutputCapture(config.output_cap_bytes, clean=frames.clean)
    run = _Run(job, emit, capture)
    reports: list[FunctionReport] | None = None
    try:
        calls = [specs.parse_call(c, max_elements=config.max_tensor_elements) for c in job.calls]
        signature = specs.parse_signature(job.signature or "")
        device = devices.select(job.device)
        run.device = device
        emit(
            {
                "event": "environment",
                "tensorflow_version": tf.__version__,  # before user code,
                "device": devices.describe(device),  # so a stopped run
                "environment": devices.environment(device),
            }
        )  # still says where
        with (
            capture.redirect(),
            devices.placement(device),
            script_env.recursion_limit_restored(),
            script_env.retracing_warnings() as retrace_log,
        ):
            code = compile_source(job.source, job.filename)  # 1. load the source
            module = new_module(job.filename, job.source) if namespace is None else None
            scope = module.__dict__ if module is not None else namespace
            if job.function is None:
                run.script_mode(code, module, scope)  # 2-4, script mode
            else:
                run.exec_module(code, scope)
                target, run.owner = resolve(job.function, scope)  # 2. resolve the entry
                run.entry_mode(target, calls, signature)  # 3-4. wrap and call
            run.stdout = capture.text()
            reports = [run.function_report(t, retrace_log) for t in run.tracked]  # 5-7
            run.export_entry()
    except _Stop:
        run.stdout = capture.text()
    except PlaygroundError as e:
        run.error = run.error or _playground_error(e)
    except RESOURCE_ERRORS as e:
        run.error, run.status = error_info(e, job.filename), "memory"
    finally:
        run.stdout = run.stdout or _safe_text(capture)
        capture.close()
        run.device = devices.effective(run.device)  # the script may have hidden its GPUs
    if reports is None:
        reports = [run.function_report_safe(t) for t in run.tracked]
    warnings = pitfalls.detect(job.source, reports, run.tracked_sources())  # 8. pitfalls
    return run.report(reports, warnings, time.perf_counter() - started, capture.truncated)


class _Run:
    """The state of one analysis, so each pipeline step stays a short method."""

    def __init__(self, job: Job, emit: Emit, capture: OutputCapture) -> None:
        self.job, self.emit, self.capture = job, emit, capture
        self.tracked: list[TrackedFunction] = []
        self.global_names: dict[TrackedFunction, list[str]] = {}
        self.error: ErrorInfo | None = None
        self.status = "ok"
        self.stdout = ""
        self.device = "/CPU:0"
        self.owner: Any = None  # keeps the instance of a bound method entry alive
        self.plan: list[specs.CallSpec] = []
        self.export: ExportInfo | None = None

    def make_tracked(self, fn: Any, name: str, python_function: Callable, options: dict) -> TrackedFunction:
        return TrackedFunction(
            fn,
            name,
            python_function,
            capture=self.capture,
            filename=self.job.filename,
            emit=self.emit,
            options=options,
        )

    def exec_module(self, code: Any, namespace: dict) -> None:
        try:
            with script_env.recursion_budget(script_env.headroom()):
                exec(code, namespace)  # noqa: S102 - this is the user's code, in the sandbox
        except RESOURCE_ERRORS:
            raise
        except SystemExit as e:  # exit() is the user's too: report it, don't exit
            if self.job.function is None and e.code in (None, 0, False):
                return  # a script that exits 0 has succeeded, as under plain Python
            self.error = dataclasses.replace(
                error_info(e, self.job.filename),
                message=(_("the code called {call}").format(call=f"exit({e.code!r})")),
            )
            raise _Stop() from e
        except (Exception, KeyboardInterrupt) as e:  # the user's code raised: at the user's line
            self.error = error_info(e, self.job.filename)
            raise _Stop() from e

    def script_mode(self, code: Any, module: Any, scope: dict) -> None:
        """Runs the file as `python file.py` would (as __main__, when it is a module of its own),
        recording its tf.functions through TF's own Function class (observe.py). The outcome is
        the script's: a call that raised and was caught is recorded as handled, not as a failed
        run."""
        overrides = {k: True for k in ("reduce_retracing", "jit_compile") if getattr(self.job, k)}
        observer = observe.Observer(self.make_tracked, self.job.filename, overrides)
        escaped: BaseException | None = None
        try:
            with observe.observing(observer), as_main(module) if module else nullcontext():
                self.exec_module(code, scope)
        except _Stop as stop:
            escaped = stop.__cause__
        finally:
            self.tracked = observer.reported()
            self.global_names = observer.global_names(scope)
            unhandled = observe.escaped_call(escaped)
            for tracked in self.tracked:
                tracked.mark_handled(unhandled[1] if unhandled and unhandled[0] is tracked else None)

    def entry_mode(
        self, target: Any, calls: list[specs.CallSpec], signature: tuple[specs.TensorSpec, ...]
    ) -> None:
        python_function, user_options = unwrap(target)
        options = {
            "input_signature": [tf.TensorSpec(s.shape, s.dtype) for s in signature]
            or user_options.get("input_signature"),
            "reduce_retracing": self.job.reduce_retracing or user_options.get("reduce_retracing", False),
            "jit_compile": self.job.jit_compile or user_options.get("jit_compile", False),
        }
        name = self.job.function or getattr(python_function, "__name__", "function")
        try:
            fn = tf.function(python_function, **options)
        except Exception as e:  # noqa: BLE001 - tf.function's own errors are the user's to see
            self.error = error_info(e, self.job.filename)
            return
        tracked = self.make_tracked(fn, name, python_function, options)
        self.tracked, self.plan = [tracked], calls
        for index, call in enumerate(calls):
            mismatch = _arity_error(python_function, call)
            if mismatch:
                tracked.record_refused(str(call), mismatch)
                continue
            args, kwargs = make_args(call, index)
            with script_env.recursion_budget(script_env.headroom()):
                tracked.call(args, kwargs, str(call))

    def function_report(self, tracked: TrackedFunction, retrace_log: list[str]) -> FunctionReport:
        options = tracked.options
        code, note, code_lines = convert.converted_code(
            tracked.python_function,  # 5. convert
            self.job.filename,
        )
        graph = hlo = measured = None
        notes = [note] if note else []
        if tracked.traces or tracked.tracing_count:
            tracked.concrete_signatures()
            if tracked.traces:
                try:
                    graph = graphs.graph_info(
                        tracked.traces[-1],  # 6. inspect the graph
                        self.job.filename,
                    )
                except Exception as e:  # noqa: BLE001 - a failure of ours must not lose the analysis
                    notes.append(
                        _("graph inspection failed: {error}").format(error=f"{type(e).__name__}: {e}")
                    )
        if tracked.last_ok_args is None and options.get("jit_compile"):
            notes.append(_("No HLO: no call succeeded, so XLA had nothing to compile."))

        if tracked.last_ok_args is not None:
            args, kwargs = tracked.last_ok_args
            if options.get("jit_compile"):
                hlo, hlo_note = graphs.hlo_text(tracked.python_function, options, args, kwargs)
                notes += [hlo_note] if hlo_note else []
            if self.job.timing:  # 7. time it
                measured = self.time_function(tracked, options, args, kwargs, notes)
        return FunctionReport(
            name=tracked.name,
            tracing_count=tracked.tracing_count,
            calls=tracked.calls,
            concrete_signatures=tracked.concrete_signatures(),
            converted_code=code,
            graph=graph,
            hlo=hlo,
            timing=measured,
            conversion_note=i18n.sentences(*notes),
            retracing_warnings=[m for m in retrace_log if _mentions(m, tracked)],
            line=_line_of(tracked.python_function, self.job.filename),
            global_names=self.global_names.get(tracked, []),
            converted_code_lines=code_lines,
        )

    def export_entry(self) -> None:
        """SavedModel and TensorBoard log of the entry function, when the job asks."""
        if not self.job.export:
            return
        if self.job.function is None or not self.tracked:
            self.export = ExportInfo(
                [],
                False,
                "",
                reason=_(
                    "Export needs an entry function: pick one (--function) instead of running the "
                    "file as a script."
                ),
            )
            return
        tracked = self.tracked[0]
        try:
            self.export = exporting.export(tracked, tracked.options, self.owner, exporting.out_dir())
        except Exception as e:  # noqa: BLE001 - an export failure must not lose the analysis
            self.export = ExportInfo(
                [], False, "", reason=_("Export failed: {error}").format(error=f"{type(e).__name__}: {e}")
            )

    def time_function(
        self, tracked: TrackedFunction, options: dict, args: list, kwargs: dict, notes: list[str]
    ) -> Any | None:
        plain = {k: v for k, v in options.items() if k != "jit_compile"}
        try:
            measured = timing.measure(
                tracked.python_function,
                plain,
                args,
                kwargs,
                budget_s=self.job.timing_budget_s,
                device=self.device,
                progress=lambda mode, done: self.emit(
                    {"event": "timing", "function": tracked.name, "mode": mode, "progress": done}
                ),
            )
        except Exception as e:  # noqa: BLE001 - a failure of ours must not lose the analysis
            notes.append(_("timing failed: {error}").format(error=f"{type(e).__name__}: {e}"))
            return None
        extra: dict[str, Any] = {"environment": devices.environment(self.device)}
        if self.job.sweep and self.plan:
            try:
                asked = specs.parse_sweep(self.job.sweep)
                sweep = _positional(asked, tracked.python_function)
                sized = [(n, *make_args(specs.resize(self.plan[-1], sweep, n), 0)) for n in sweep.sizes]
                extra["sweep"] = timing.sweep(
                    tracked.python_function,
                    plain,
                    sized,
                    budget_s=self.job.timing_budget_s,
                    device=self.device,
                )
                extra["sweep_label"] = _("{arg} dim {dim}").format(arg=asked.arg, dim=asked.dim)
            except PlaygroundError as e:
                notes.append(_("size sweep {sweep}: {error}").format(sweep=self.job.sweep, error=e))
        return dataclasses.replace(measured, **extra)

    def function_report_safe(self, tracked: TrackedFunction) -> FunctionReport:
        return FunctionReport(
            name=tracked.name,
            tracing_count=tracked.tracing_count,
            calls=tracked.calls,
            concrete_signatures=[],
            converted_code=None,
            graph=None,
            hlo=None,
            timing=None,
        )

    def tracked_sources(self) -> list[Callable]:
        return [source_function(t.python_function) for t in self.tracked]

    def report(
        self, functions: list[FunctionReport], warnings: list, duration: float, truncated: bool
    ) -> Report:
        status = self.status
        # A script's outcome is the script's; a planned call that raised fails the entry run.
        failed_call = any(c.error and not c.handled for f in functions for c in f.calls)
        if status == "ok" and (self.error or failed_call):
            status = "error"
        message = _summary(status, self.error, functions)
        if truncated:
            status, message = "killed", _("Output limit: 1 MiB printed, rest dropped")
        return Report(
            tensorflow_version=tf.__version__,
            device=devices.describe(self.device),
            status=status,
            error=self.error,
            stdout=self.stdout,
            warnings=warnings,
            functions=functions,
            message=message,
            duration_s=duration,
            environment=devices.environment(self.device),
            export=self.export,
            fallbacks=compat.fallbacks(),
        )


def _verify(job: Job, started: float) -> Report:
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
    status = "ok" if error is None else "error"
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
        status=status,
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


class _Stop(Exception):
    """The user's module raised; its error is recorded and the pipeline goes on to report."""


def _positional(sweep: specs.Sweep, python_function: Callable) -> specs.Sweep:
    """Sweeps name arguments as the user does; calls hold them by position."""
    if isinstance(sweep.arg, str):
        names = list(inspect.signature(python_function).parameters)
        if sweep.arg in names:
            return dataclasses.replace(sweep, arg=names.index(sweep.arg))
    return sweep


def _arity_error(python_function: Callable, call: specs.CallSpec) -> str:
    """Says why a planned call cannot bind to the function's parameters, before TF is called."""
    try:
        parameters = inspect.signature(python_function)
    except (TypeError, ValueError):
        return ""
    try:
        parameters.bind(*call.args, **dict(call.kwargs))
    except TypeError as e:
        names = ", ".join(parameters.parameters) or _("no arguments")
        return _("call ({call}) does not fit {signature}: {error}").format(
            call=call, signature=f"{python_function.__name__}({names})", error=e
        )
    return ""


def _mentions(message: str, tracked: TrackedFunction) -> bool:
    name = getattr(source_function(tracked.python_function), "__qualname__", tracked.name)
    return f"<function {name} at" in message or tracked.name in message


def _line_of(python_function: Callable, filename: str) -> int | None:
    code = getattr(source_function(python_function), "__code__", None)
    return code.co_firstlineno if code is not None and code.co_filename == filename else None


def _summary(status: str, error: ErrorInfo | None, functions: list[FunctionReport]) -> str:
    traces = sum(f.tracing_count for f in functions)
    calls = sum(len(f.calls) for f in functions)
    if error is not None:
        where = f" (line {error.line})" if error.line else ""
        return f"{error.type}{where}: {error.message.splitlines()[0][:200]}"
    failed = sum(1 for f in functions for c in f.calls if c.error and not c.handled)
    handled = sum(1 for f in functions for c in f.calls if c.handled)
    text = _("{functions} function(s), {calls} call(s), {traces} trace(s)").format(
        functions=len(functions), calls=calls, traces=traces
    )
    text += _(", {failed} call(s) raised").format(failed=failed) if failed else ""
    return text + (
        _(", {handled} call(s) raised and were handled by the script").format(handled=handled)
        if handled
        else ""
    )


def _playground_error(e: PlaygroundError) -> ErrorInfo:
    """A source error keeps the Python exception's name, line and column."""
    cause = e.__cause__
    if isinstance(cause, SyntaxError):
        return ErrorInfo(
            type(cause).__name__,
            cause.msg,
            cause.lineno,
            cause.offset,
            traceback="".join(traceback.format_exception_only(cause)),
        )
    return ErrorInfo(type(e).__name__, str(e), None)
