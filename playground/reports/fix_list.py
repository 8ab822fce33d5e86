"""One fix list for a whole program's run: an entry per function and cause of its retraces, with
how often and from where ("train_step retraced 499 times: lr is a Python value that changes;
from train.py:42"), and a warning for a cache that keeps growing (the memory-leak class).
Read from the report alone: trace mode's HTML page, its JSON and its stderr line share it."""

from __future__ import annotations

from ..contract import reasons
from ..contract.i18n import _
from ..contract.job import CallRecord, FunctionReport, Warning

GROWING = 8  # graphs in one function's cache before a still-growing cache is worth a warning
_SITES = 3  # call sites named per entry


def fixes(functions: list[FunctionReport]) -> list[Warning]:
    found: list[Warning] = []
    for function in functions:
        by_cause: dict[str, list[CallRecord]] = {}
        for call in function.calls:
            if call.retraced:
                for cause in sorted(reasons.causes(call.reason)):
                    by_cause.setdefault(cause, []).append(call)
        for cause, calls in by_cause.items():
            message = _("{name} retraced {n} time(s): {what}; from {sites}").format(
                name=function.name, n=len(calls), what=_what(cause, calls), sites=_sites(calls)
            )
            found.append(
                Warning("retracing-cause", calls[0].line, message, advice(cause, function), function.name)
            )
        growing = still_growing(function)
        if growing is not None:
            found.append(growing)
    return found


def still_growing(function: FunctionReport) -> Warning | None:
    """A cache of many graphs that was still gaining them in the second half of the calls."""
    traced = [c for c in function.calls if c.retraced]
    calls = len(function.calls) + function.calls_not_listed
    if function.tracing_count < GROWING or not traced or traced[-1].index + 1 < calls / 2:
        return None
    causes = {cause for c in traced for cause in reasons.causes(c.reason)}
    return Warning(
        "growing-cache",
        traced[-1].line,
        _(
            "{name} holds {n} graphs and was still adding them at call {last} of {calls}: each "
            "graph stays in memory as long as the function does"
        ).format(name=function.name, n=function.tracing_count, last=traced[-1].index + 1, calls=calls),
        advice(sorted(causes)[0] if causes else "other", function),
        function.name,
    )


def advice(cause: str, function: FunctionReport) -> str:
    if cause == "value":
        return _("Pass it as a tensor (tf.constant) or a tf.Variable, so a new value reuses the graph.")
    if cause == "shape" and function.maker.startswith("keras"):
        return _(
            "Keras traces again for each new batch shape: keep batches one size (drop_remainder=True "
            "in tf.data, or a row count that batch_size divides)."
        )
    if cause == "shape":
        return _(
            "Give the function an input_signature with None where the size varies, or reduce_retracing=True."
        )
    return _(
        "Create models, optimizers and variables once, outside the function, and pass the same "
        "objects on every call."
    )


def _what(cause: str, calls: list[CallRecord]) -> str:
    names: list[str] = []
    for call in calls:
        if cause == "value":
            changed = [arg for arg, _change in reasons.python_values(call.reason)]
        else:
            parts = [part.partition(": ") for part in (call.reason or "").split("; ")]
            changed = [arg for arg, sep, change in parts if sep and not change.startswith("Python value")]
        names += [n for n in changed if n not in names]
    args = ", ".join(names[:5]) or "?"
    if cause == "value":
        return _("{args} is a Python value that changes").format(args=args)
    if cause == "shape":
        return _("the shape or dtype of {args} changes").format(args=args)
    return _("no argument changed")


def _sites(calls: list[CallRecord]) -> str:
    sites: list[str] = []
    for call in calls:
        if call.site and call.site not in sites:
            sites.append(call.site)
    more = len(sites) - _SITES
    return ", ".join(sites[:_SITES]) + (_(" and {n} more").format(n=more) if more > 0 else "") or "?"
