"""A request for a run, in the CLI's grammar: the `analyze` flags as fields. The CLI builds one from
its flags, the HTTP API from a JSON body (docs/api.md); both turn it into a Job here, with the same
parsers and the same messages, and a refusal names the field it is about.
"""

from __future__ import annotations

import dataclasses
import math
import string
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
    a hosted playground sets for everyone (the page's: code size, calls, budget, timeout).

    Cheap checks come first, so that a refusal costs less than a Run: sizes and counts, then the
    plan's grammar (bounded by those counts), and only then the code, read with Python's parser
    (tens of milliseconds for 64 KB) to see how deep it nests and what the plan calls."""
    if hosted:
        _hosted_limits(request, config)
    check_text(request.source)
    options.check(options.values_of(request))
    if request.timeout_s is not None and request.timeout_s <= 0:
        raise FieldError(
            "timeout_s", _("--timeout must be positive, got {value}").format(value=request.timeout_s)
        )
    parsed = _grammar(request.calls, config.max_tensor_elements)
    reading = source_info.read(request.source)  # once, and kept for the next few requests
    deep = reading.nesting_problem()
    if deep:
        raise FieldError("source", deep)
    called = _called(request, reading.functions)
    for number, (text, call) in enumerate(zip(request.calls, parsed)):
        problem = call_problem(text, called, config.max_tensor_elements, call)
        if problem:
            raise FieldError(f"calls[{number}]", problem)
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


def _grammar(calls: tuple[str, ...], max_elements: int) -> list[specs.CallSpec | None]:
    """Each call parsed, before the code is read: a call the grammar cannot read is refused
    here. A call with a "?" to fill in is left (None) for call_problem, which names the
    parameter the "?" stands for once the code says it."""
    parsed: list[specs.CallSpec | None] = []
    for number, text in enumerate(calls):
        if plan_fit.placeholders(text, None):
            parsed.append(None)
            continue
        try:
            parsed.append(specs.parse_call(text, max_elements=max_elements))
        except PlaygroundError as error:
            raise FieldError(f"calls[{number}]", str(error)) from None
    return parsed


def call_problem(
    text: str,
    called: source_info.FunctionInfo | None,
    max_elements: int,
    call: specs.CallSpec | None = None,
) -> str:
    """Why one line of the plan cannot run, as Run says it (the page says it as it is typed);
    "" when it can: a "?" to fill in, a form the grammar cannot read, or arguments that do not
    bind to the function. `call`: the line already parsed."""
    fill = plan_fit.placeholders(text, called)  # before the parser, which refuses "?" unnamed
    if fill:
        return fill
    if call is None:
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


def _called(
    request: JobRequest, defined: tuple[source_info.FunctionInfo, ...]
) -> source_info.FunctionInfo | None:
    """The function the plan calls, of those the source defines, when its parameters can be
    trusted (not in script mode, and no decorator but tf.function's that could change them)."""
    if not request.function:
        return None
    found = next((i for i in defined if i.name == request.function), None)
    return None if found is None or found.wrapped else found


def _hosted_limits(request: JobRequest, config: Settings) -> None:
    problem = source_size_problem(request.source, config)  # before check_text: a size first
    if problem:
        raise FieldError("source", problem)
    plan_limits(request, config)
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


def source_size_problem(source: str, config: Settings) -> str:
    """Why the code is too large for a hosted run, or "": its UTF-8 bytes, counted without
    reading it (the page's editor asks this before it parses what was pasted)."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > config.max_source_bytes:
        return _("The code is {size} bytes; the limit is {limit}.").format(
            size=size, limit=config.max_source_bytes
        )
    return ""


def plan_limits(request: JobRequest, config: Settings) -> None:
    """The plan's sizes and counts (its calls, its characters, its marks), each a FieldError
    before any of it is parsed."""
    if len(request.calls) > config.max_calls:
        raise FieldError(
            "calls",
            _("{n} calls; the limit is {limit} per run.").format(
                n=len(request.calls), limit=config.max_calls
            ),
        )
    _text_limit(request, config.max_source_bytes)
    _marks_limit(request)


def plan_problem(calls: typing.Sequence[str], config: Settings, sweep: str | None = None) -> str:
    """Why a plan (and a size sweep) is refused by its sizes and counts alone, as Run words it, or
    "": the page says it as the plan is typed, and parses no line of a plan it refuses."""
    try:
        plan_limits(JobRequest(source="", calls=tuple(calls), sweep=sweep), config)
    except FieldError as error:
        return str(error)
    return ""


# The fields parsed in Python on the server, character by character: with the source's cap over
# them all, a request costs milliseconds to check (a 4 MB call of a million arguments cost the
# server's event loop 12 s).
_PARSED = ("calls", "signature", "sweep", "compare", "function", "tf_version", "filename")


def _text_limit(request: JobRequest, limit: int) -> None:
    sizes = _per_field(request, len)
    if sum(sizes.values()) > limit:
        largest = max(sizes, key=lambda name: sizes[name])
        raise FieldError(
            largest,
            _("The call plan and options are {size} characters; the limit is {limit}.").format(
                size=sum(sizes.values()), limit=limit
            ),
        )


def _per_field(
    request: JobRequest, measure: typing.Callable[[str], int], names: tuple[str, ...] = _PARSED
) -> dict[str, int]:
    """Each named field's measure (a list's summed over its items)."""
    return {
        name: sum(map(measure, value)) if isinstance(value, tuple) else measure(value or "")
        for name in names
        for value in [getattr(request, name)]
    }


# What the grammar parses one Python step (or one syntax-tree node) at a time: a comma, a bracket,
# a dot, an operator or a quote. The characters between them cost little (a regex, or one token
# of Python's parser), so their count bounds the cost of reading a plan: 1,024 of them read in
# about 4 ms here, where a 64 KB literal of 32,000 numbers took 50 ms (and 32,000 arguments
# 190 ms) before the request was refused. The gallery's largest plan has 21.
MAX_PLAN_MARKS = 512
PLAN_MARKS = "".join(c for c in string.punctuation if c != "_")
_GRAMMAR = ("calls", "signature", "sweep", "compare")  # the fields the plan's grammar reads


def plan_marks(text: str) -> int:
    """How many of PLAN_MARKS a text holds (one C-speed count each)."""
    return sum(map(text.count, PLAN_MARKS))


def _marks_limit(request: JobRequest) -> None:
    marks = _per_field(request, plan_marks, _GRAMMAR)
    if sum(marks.values()) > MAX_PLAN_MARKS:
        largest = max(marks, key=lambda name: marks[name])
        raise FieldError(
            largest,
            _(
                "The call plan and options hold {n} commas, brackets, dots, quotes and operators; "
                "the limit is {limit}. Make a large tensor with a form such as tf.ones([1000]) or "
                "tf.range(1000), or with a function of your code, not as a literal."
            ).format(n=sum(marks.values()), limit=MAX_PLAN_MARKS),
        )


def max_body_bytes(config: Settings) -> int:
    """The largest JSON body a hosted request can be, so that a larger one is refused before it
    is read: its code (max_source_bytes of UTF-8, each byte at most 6 bytes of JSON, as
    \\u0001), its plan and options (max_source_bytes characters, each at most 12 bytes, as a
    surrogate pair), and BODY_SPARE_BYTES for its other fields and whitespace."""
    return 6 * config.max_source_bytes + 12 * config.max_source_bytes + BODY_SPARE_BYTES


BODY_SPARE_BYTES = 64 * 1024


def max_json_values(config: Settings) -> int:
    """How many values (strings, numbers, lists) a hosted request's JSON holds at most: each
    field's name and value, and max_calls calls. A body holding more is refused before it is
    decoded (api/body.py counts them in its bytes)."""
    return 2 * len(dataclasses.fields(JobRequest)) + config.max_calls


def as_mapping(request: JobRequest) -> Mapping[str, Any]:
    """The JSON body that asks for this request (fields at their defaults left out)."""
    return {
        f.name: getattr(request, f.name)
        if not isinstance(getattr(request, f.name), tuple)
        else list(getattr(request, f.name))
        for f in dataclasses.fields(JobRequest)
        if getattr(request, f.name) != f.default
    }
