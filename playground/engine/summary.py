"""Step 8: the Report, with its status and the one-line summary the page, the CLI and the API
show first."""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING

import tensorflow as tf

from ..contract.errors import PlaygroundError
from ..contract.i18n import _
from ..contract.job import ErrorInfo, FunctionReport, ModuleRun, Report, Status, Warning
from . import compat
from . import device as devices

if TYPE_CHECKING:
    from .execution import Execution


def report(
    run: Execution,
    functions: list[FunctionReport],
    warnings: list[Warning],
    duration: float,
    truncated: bool,
    made: list[FunctionReport] | None = None,
) -> Report:
    """made: the functions libraries made for the program (reported apart from the user's)."""
    made = made or []
    status: Status = run.status
    # A script's outcome is the script's; a planned call that raised fails the entry run.
    failed_call = any(c.error and not c.handled for f in functions for c in f.calls)
    if status == "ok" and (run.error or failed_call):
        status = "error"
    message = _summary(run.error, functions, made) + module_clause(run.module, run.error)
    if truncated:
        status, message = "killed", _("Output limit: 1 MiB printed, rest dropped")
    return Report(
        tensorflow_version=tf.__version__,
        device=devices.describe(run.device),
        status=status,
        error=run.error,
        stdout=run.stdout,
        warnings=warnings,
        functions=functions,
        message=message,
        duration_s=duration,
        environment=devices.environment(run.device),
        export=run.export,
        fallbacks=compat.fallbacks(),
        library_functions=made,
        module=run.module,
    )


def playground_error(e: PlaygroundError) -> ErrorInfo:
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


def _summary(error: ErrorInfo | None, functions: list[FunctionReport], made: list[FunctionReport]) -> str:
    if error is not None:
        where = f" (line {error.line})" if error.line else ""
        return f"{error.type}{where}: {error.headline()[:200]}"
    traces = sum(f.tracing_count for f in functions)
    calls = sum(len(f.calls) for f in functions)
    failed = sum(1 for f in functions for c in f.calls if c.error and not c.handled)
    handled = sum(1 for f in functions for c in f.calls if c.handled)
    text = _("{functions} function(s), {calls} call(s), {traces} trace(s)").format(
        functions=len(functions), calls=calls, traces=traces
    )
    text += _(", {failed} call(s) raised").format(failed=failed) if failed else ""
    text += (
        _(", {handled} call(s) raised and were handled by the script").format(handled=handled)
        if handled
        else ""
    )
    return text + made_by_libraries(made)


def made_by_libraries(made: list[FunctionReport]) -> str:
    """The summary's clause for the functions libraries made, or "" when none did."""
    if not made:
        return ""
    return _("; libraries made {functions} more for it, with {traces} trace(s)").format(
        functions=len(made), traces=sum(f.tracing_count for f in made)
    )


def module_clause(module: ModuleRun | None, error: ErrorInfo | None) -> str:
    """Function mode: the summary's clause for the module's own calls to the entry, so TF's
    retracing warning about them and the plan's counts do not seem to disagree."""
    if module is None or not module.calls or error is not None:
        return ""
    return _(
        "; before the plan, the module's own code called {name} {calls} time(s) ({traces} trace(s))"
    ).format(name=module.entry, calls=module.calls, traces=module.traces or 0)
