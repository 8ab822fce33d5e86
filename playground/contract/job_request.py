"""A request for a run, in the CLI's grammar: the `analyze` flags as fields. The CLI builds one from
its flags, the HTTP API from a JSON body (docs/api.md); both turn it into a Job here, with the same
parsers and the same messages, and a refusal names the field it is about.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import options, plan_fit, source_info, specs, versions
from .config import Settings
from .errors import PlaygroundError
from .i18n import _
from .job import Job
from .options import FieldError, RunOptions
from .options import as_field as _field
from .source_text import check_text


@dataclass(frozen=True)
class JobRequest(RunOptions):
    """What a client asks to run. Every field but `source` may be left out; the run's options
    (signature, reduce_retracing, jit_compile, timing, ...) come from contract/options.py."""

    source: str  # the file's text
    function: str | None = None  # entry, e.g. "f" or "Counter().increment"; none: script
    calls: tuple[str, ...] = ()  # one call each, e.g. "float32[2,3], n=2"
    timeout_s: float | None = None  # none: the server's PLAYGROUND_TIMEOUT_S
    tf_version: str = ""  # "": the default; see /api/v1/versions
    language: str = ""  # of the report's sentences: en or zh; "": the
    # client's (the API: ?lang=, else Accept-Language)
    compare: str | None = None  # run twice, side b changed: "tf=2.15.1", "jit_compile"
    filename: str = "playground_input.py"  # the name tracebacks show


def from_json(data: Any) -> JobRequest:
    """A JobRequest from a decoded JSON body: each field of the right JSON type, no other fields."""
    if not isinstance(data, dict):
        raise FieldError("", _('the body must be a JSON object with at least "source"'))
    hints = typing.get_type_hints(JobRequest)
    names = [f.name for f in dataclasses.fields(JobRequest)]
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise FieldError(
            unknown[0],
            _("unknown field {field}; the fields are: {fields}").format(
                field=repr(unknown[0]), fields=", ".join(names)
            ),
        )
    if "source" not in data:
        raise FieldError("source", _('"source" is missing: the code to run'))
    values = {name: _typed(name, hints[name], value) for name, value in data.items()}
    return JobRequest(**values)


def _typed(name: str, hint: Any, value: Any) -> Any:
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType)
    if value is None and optional:
        return None
    base = next(a for a in typing.get_args(hint) if a is not type(None)) if optional else hint
    if (
        base is float
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
    ):
        return float(value)
    if base is float:  # NaN and Infinity are no time limit either
        raise FieldError(name, _("{field} must be {kind}").format(field=name, kind=_("a number")))
    if typing.get_origin(base) is tuple:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise FieldError(name, _("{field} must be a list of strings").format(field=name))
    if isinstance(value, base) and not (base is not bool and isinstance(value, bool)):
        return value
    kind = {str: _("a string"), bool: _("true or false"), float: _("a number")}[base]
    raise FieldError(name, _("{field} must be {kind}").format(field=name, kind=kind))


def to_job(request: JobRequest, config: Settings, *, hosted: bool = False) -> Job:
    """The Job, or a FieldError naming the first field that cannot run. The checks and messages
    are the CLI's: the spec grammar's parsers, the installed versions. `hosted`: also the limits
    a hosted playground sets for everyone (the page's: code size, calls, budget, timeout)."""
    check_text(request.source)
    deep = source_info.nesting_problem(request.source)
    if deep:
        raise FieldError("source", deep)
    if hosted:
        _hosted_limits(request, config)
    called = _called(request)
    for number, text in enumerate(request.calls):
        problem = call_problem(text, called, config.max_tensor_elements)
        if problem:
            raise FieldError(f"calls[{number}]", problem)
    options.check(options.values_of(request))
    if request.timeout_s is not None and request.timeout_s <= 0:
        raise FieldError(
            "timeout_s", _("--timeout must be positive, got {value}").format(value=request.timeout_s)
        )
    chosen = _field("tf_version", versions.resolve, config, request.tf_version)
    # An empty text option is no option: the engine reads None.
    given: dict[str, Any] = {
        name: None if value == "" else value for name, value in options.values_of(request).items()
    }
    return Job(
        source=request.source,
        function=request.function or None,
        calls=request.calls,
        timeout_s=config.timeout_s if request.timeout_s is None else request.timeout_s,
        filename=request.filename.rsplit("/", 1)[-1] or "playground_input.py",
        tf_version="" if chosen.default else chosen.version,
        **given,
    )


def call_problem(text: str, called: source_info.FunctionInfo | None, max_elements: int) -> str:
    """Why one line of the plan cannot run, as Run says it (the page says it as it is typed);
    "" when it can: a "?" to fill in, a form the grammar cannot read, or arguments that do not
    bind to the function."""
    fill = plan_fit.placeholders(text, called)  # before the parser, which refuses "?" unnamed
    if fill:
        return fill
    try:
        call = specs.parse_call(text, max_elements=max_elements)
    except PlaygroundError as error:
        return str(error)
    return plan_fit.unfit(text, called, call)


def described(error: FieldError, calls: tuple[str, ...] | list[str]) -> str:
    """The error as a person reads it: a call's names the call ("Call 2 ('float32[3], 2'): ...")."""
    if error.field.startswith("calls["):
        number = int(error.field[len("calls[") : -1])
        if number < len(calls):
            return _("Call {number} ({call}): {error}").format(
                number=number + 1, call=specs.shown(calls[number]), error=error
            )
    return str(error)


def _called(request: JobRequest) -> source_info.FunctionInfo | None:
    """The function the plan calls, read from the source, when its parameters can be trusted
    (not in script mode, and no decorator but tf.function's that could change them)."""
    if not request.function:
        return None
    found = next((i for i in source_info.functions(request.source) if i.name == request.function), None)
    return None if found is None or found.wrapped else found


def _hosted_limits(request: JobRequest, config: Settings) -> None:
    size = len(request.source.encode())
    if size > config.max_source_bytes:
        raise FieldError(
            "source",
            _("The code is {size} bytes; the limit is {limit}.").format(
                size=size, limit=config.max_source_bytes
            ),
        )
    if len(request.calls) > config.max_calls:
        raise FieldError(
            "calls",
            _("{n} calls; the limit is {limit} per run.").format(
                n=len(request.calls), limit=config.max_calls
            ),
        )
    _text_limit(request, config.max_source_bytes)
    if not 0 < request.timing_budget_s <= config.max_timing_budget_s:
        raise FieldError(
            "timing_budget_s",
            _("The timing budget must be between 0 and {limit} s.").format(
                limit=f"{config.max_timing_budget_s:g}"
            ),
        )
    if request.timeout_s is not None and request.timeout_s > config.timeout_s:
        raise FieldError(
            "timeout_s",
            _("timeout_s is at most {limit} s on this server").format(limit=f"{config.timeout_s:g}"),
        )


# The fields parsed in Python on the server, character by character: with the source's cap over
# them all, a request costs milliseconds to check (a 4 MB call of a million arguments cost the
# server's event loop 12 s).
_PARSED = ("calls", "signature", "sweep", "compare", "function", "tf_version", "filename")


def _text_limit(request: JobRequest, limit: int) -> None:
    sizes = {
        name: sum(map(len, value)) if isinstance(value, tuple) else len(value or "")
        for name in _PARSED
        for value in [getattr(request, name)]
    }
    if sum(sizes.values()) > limit:
        largest = max(sizes, key=lambda name: sizes[name])
        raise FieldError(
            largest,
            _("The call plan and options are {size} characters; the limit is {limit}.").format(
                size=sum(sizes.values()), limit=limit
            ),
        )


def as_mapping(request: JobRequest) -> Mapping[str, Any]:
    """The JSON body that asks for this request (fields at their defaults left out)."""
    return {
        f.name: getattr(request, f.name)
        if not isinstance(getattr(request, f.name), tuple)
        else list(getattr(request, f.name))
        for f in dataclasses.fields(JobRequest)
        if getattr(request, f.name) != f.default
    }
