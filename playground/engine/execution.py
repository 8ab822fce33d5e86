"""Step 4: running the user's code, and what one analysis holds while it runs.

Two modes: an entry function (`--function`) wrapped in tf.function and called once per line
of the plan; or the whole file run as a script, as `python file.py` would, with every
tf.function it makes observed (observe.py). The user's exceptions are recorded at the user's
line (source.py), never raised past `analyze`.

In function mode the file's own top-level code runs first, whole, as an import would run it:
what it prints and its calls to the entry's tf.function are kept apart (ModuleRun), and the
plan's calls are made on a tf.function of their own, so its counts start from zero.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import tensorflow as tf

from ..contract import specs
from ..contract.i18n import _
from ..contract.job import ErrorInfo, ExportInfo, Job, ModuleRun, Status
from ..contract.protocol import OnEvent
from . import export as exporting
from . import makers, observe, script_env
from .capture import OutputCapture
from .entry import resolve, source_function, unwrap
from .source import as_main, error_info
from .tracing import TrackedFunction
from .values import MakerRaised, Refused, bind_error, make_args

RESOURCE_ERRORS = (MemoryError, tf.errors.ResourceExhaustedError)


class Stop(Exception):
    """The user's module raised; its error is recorded and the pipeline goes on to report."""


class Execution:
    """One analysis while it runs: the job, the functions observed, and the outcome so far."""

    def __init__(self, job: Job, emit: OnEvent, capture: OutputCapture) -> None:
        self.job, self.emit, self.capture = job, emit, capture
        self.tracked: list[TrackedFunction] = []
        self.global_names: dict[TrackedFunction, list[str]] = {}
        self.plan: list[specs.CallSpec] = []
        self.owner: Any = None  # keeps the instance of a bound method entry alive
        self.device = "/CPU:0"
        self.error: ErrorInfo | None = None
        self.status: Status = "ok"
        self.stdout = ""
        self.export: ExportInfo | None = None
        self.module: ModuleRun | None = None  # function mode: what the module's own code did
        self.module_logged = 0  # how many of TF's retracing warnings the module's code logged
        self.users = makers.UserFiles.one(job.filename)  # the pasted file is the user's only one

    def execute(
        self,
        code: Any,
        module: Any,
        scope: dict,
        plan: list[specs.CallSpec],
        signature: tuple[specs.TensorSpec, ...],
    ) -> None:
        if self.job.function is None:
            self.script_mode(code, module, scope)
        else:
            observer = self.module_run(code, scope)
            target, self.owner = resolve(self.job.function, scope)
            self.module = entry_counts(self.module, observer, target)
            self.entry_mode(target, plan, signature)

    def make_tracked(
        self, fn: Any, name: str, python_function: Callable, options: dict, **made: Any
    ) -> TrackedFunction:
        """made: maker= and made_at=, for a function the program made (observe.py)."""
        return TrackedFunction(
            fn,
            name,
            python_function,
            capture=self.capture,
            filename=self.job.filename,
            emit=self.emit,
            options=options,
            users=self.users,
            **made,
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
            raise Stop() from e
        except (Exception, KeyboardInterrupt) as e:  # the user's code raised: at the user's line
            self.error = error_info(e, self.job.filename)
            raise Stop() from e

    def module_run(self, code: Any, scope: dict) -> observe.Observer:
        """Function mode's first step: the module's top-level code, as Python runs it (the
        job's options are not forced on its tf.functions), with its output and TF's retracing
        warnings kept apart from the plan's, and its tf.functions' calls counted (observe.py;
        quietly: no progress events, which belong to the plan's calls)."""
        entry = self.job.function or ""
        observer = observe.Observer(self._quiet_tracked, self.users)
        start = self.capture.offset()
        logged: list[str] = []
        try:
            with observe.observing(observer), script_env.retracing_warnings() as logged:
                self.exec_module(code, scope)
        finally:
            self.module_logged = len(logged)
            self.module = ModuleRun(entry, self.capture.text(start), retracing_warnings=list(logged))
        return observer

    def plan_warnings(self, retrace_log: list[str]) -> list[str]:
        """TF's retracing warnings logged after the module ran: the plan's. (The log is empty
        before the module runs, and it records the module's warnings in the same order.)"""
        return retrace_log[self.module_logged :]

    def _quiet_tracked(
        self, fn: Any, name: str, python_function: Callable, options: dict, **made: Any
    ) -> TrackedFunction:
        return self.make_tracked(fn, name, python_function, options, quiet=True, **made)

    def script_mode(self, code: Any, module: Any, scope: dict) -> None:
        """Runs the file as `python file.py` would (as __main__, when it is a module of its own),
        recording its tf.functions through TF's own Function class (observe.py). The outcome is
        the script's: a call that raised and was caught is recorded as handled, not as a failed
        run."""
        overrides = {k: True for k in ("reduce_retracing", "jit_compile") if getattr(self.job, k)}
        observer = observe.Observer(self.make_tracked, self.users, overrides)
        escaped: BaseException | None = None
        try:
            with observe.observing(observer), as_main(module) if module else nullcontext():
                self.exec_module(code, scope)
        except Stop as stop:
            escaped = stop.__cause__
        finally:
            self.tracked, self.global_names = observe.outcome(observer, scope, escaped)

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
        name = self.job.function if self.job.function else getattr(python_function, "__name__", "function")
        try:
            fn = tf.function(python_function, **options)
        except Exception as e:  # noqa: BLE001 - tf.function's own errors are the user's to see
            self.error = error_info(e, self.job.filename)
            return
        tracked = self.make_tracked(fn, name, python_function, options)
        self.tracked, self.plan = [tracked], calls
        scope = getattr(source_function(python_function), "__globals__", {})  # where make_batch is
        for index, call in enumerate(calls):
            mismatch = "" if call.spread else _arity_error(python_function, call)  # a spread binds once made
            if mismatch:
                tracked.record_refused(str(call), mismatch)
                continue
            try:
                args, kwargs = make_args(call, index, scope, python_function)
            except Refused as refused:
                tracked.record_refused(str(call), str(refused))
                continue
            except MakerRaised as raised:  # the user's make_batch raised: at the user's line
                tracked.finish(tracked.begin([], {}, str(call)), error=raised.__cause__)
                continue
            with script_env.recursion_budget(script_env.headroom()):
                tracked.call(args, kwargs, str(call))

    def sources(self) -> list[Callable]:
        return [source_function(t.python_function) for t in self.tracked if not t.maker]


def entry_counts(module: ModuleRun | None, observer: observe.Observer, target: Any) -> ModuleRun | None:
    """The module's calls to the entry, and TF's tracing count of the tf.functions it made of
    the entry's Python function (the user's @tf.function itself, a per-instance copy of a
    method's, or a tf.function(f) of its own): the same count `f.experimental_get_tracing_count()`
    gives under plain Python. None where it made none; plain calls of a plain def run eagerly,
    with nothing to count."""
    if module is None:
        return None
    wrapped = not hasattr(target, "python_function")
    try:
        python_function = source_function(unwrap(target)[0])
        made = [t for t in observer.functions if source_function(t.python_function) is python_function]
        calls = sum(len(t.calls) + t.calls_not_listed for t in made) if made else None
        traces = sum(t.tracing_count for t in made) if made else None
        warnings = [w for w in module.retracing_warnings if any(t.warnings_in([w]) for t in made)]
    except Exception:  # noqa: BLE001 - counting is ours: its failure must not lose the run
        calls = traces = None
        warnings = []
    return dataclasses.replace(
        module, calls=calls, traces=traces, retracing_warnings=warnings, wrapped=wrapped
    )


def export_entry(run: Execution) -> ExportInfo | None:
    """Step 6: a SavedModel and TensorBoard log of the entry function, when the job asks."""
    if not run.job.export:
        return None
    if run.job.function is None or not run.tracked:
        return ExportInfo(
            [],
            False,
            "",
            reason=_(
                "Export needs an entry function: pick one (--function) instead of running the "
                "file as a script."
            ),
        )
    tracked = run.tracked[0]
    try:
        return exporting.export(tracked, tracked.options, run.owner, exporting.out_dir())
    except Exception as e:  # noqa: BLE001 - an export failure must not lose the analysis
        return ExportInfo(
            [], False, "", reason=_("Export failed: {error}").format(error=f"{type(e).__name__}: {e}")
        )


def _arity_error(python_function: Callable, call: specs.CallSpec) -> str:
    """Says why a planned call cannot bind to the function's parameters, before TF is called."""
    failed = bind_error(python_function, call.args, dict(call.kwargs))
    if failed is None:
        return ""
    signature, error = failed
    return _("call ({call}) does not fit {signature}: {error}").format(
        call=call, signature=signature, error=error
    )
