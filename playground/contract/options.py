"""The run's options, each defined once: the table every front door derives from.

`RunOptions` is the table: one field a row, with its default, and in its metadata the share
link's query parameter, the CLI's flag, the page's label and help, and its check. Job and
JobRequest inherit the fields; the CLI's flags (and so the notebook magic's), the API's body
and OpenAPI schema, the share link, and the page's inputs are made from `OPTIONS`. Adding an
option is one row here and its use in the engine (docs/architecture.md, "Adding an option").
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import specs
from .errors import PlaygroundError, SpecError
from .i18n import N_, _

DEVICES = ("auto", "cpu", "gpu")


def _device(value: str) -> None:
    if value not in DEVICES:
        raise SpecError(_("device must be one of: {choices}").format(choices=", ".join(DEVICES)))


def _tolerance(value: float) -> None:
    if not 0 < value < 1:
        raise SpecError(_("the tolerance must be a number above 0 and below 1, e.g. 1e-5"))


def option(
    default: Any,
    *,
    flags: tuple[str, ...] = (),
    param: str | None = None,
    label: str = "",
    help: str = "",
    metavar: str | None = None,
    choices: tuple[str, ...] = (),
    check: Callable[[Any], Any] | None = None,
) -> Any:
    """A row of the table. `flags`: the CLI's (none: not a flag); `param`: the share link's
    query parameter (none: not in links); `label`, `help`: N_() texts; `check(value)` raises a
    PlaygroundError for a value that cannot run (it is told as this field's)."""
    row = dict(
        flags=flags, param=param, label=label, help=help, metavar=metavar, choices=choices, check=check
    )
    return dataclasses.field(default=default, metadata={"option": row})


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How to run the plan: tf.function's options and the playground's own."""

    signature: str | None = option(
        None,
        flags=("--signature",),
        param="sig",
        label="input_signature",
        help=N_("One TensorSpec per parameter, None for a dynamic dim. Empty: no signature."),
        metavar="SPECS",
        check=specs.parse_signature,
    )
    reduce_retracing: bool = option(
        False,
        flags=("--reduce-retracing", "--experimental-relax-shapes"),
        param="rr",
        label=N_("reduce_retracing (formerly experimental_relax_shapes)"),
        help=N_("Generalise shapes after a retrace instead of tracing each new shape."),
    )
    jit_compile: bool = option(
        False,
        flags=("--jit-compile",),
        param="jit",
        label="jit_compile (XLA)",
        help=N_("XLA: jit_compile=True"),
    )
    timing: bool = option(
        False,
        flags=("--timing",),
        param="timing",
        label=N_("Time eager vs graph vs XLA"),
        help=N_("time eager vs graph vs XLA"),
    )
    timing_budget_s: float = option(
        2.0,
        flags=("--timing-budget",),
        param="budget",
        label=N_("Timing budget (s)"),
        help=N_("seconds of measurement per function (default 2)"),
        metavar="SECONDS",
    )
    numbers: bool = option(
        False,
        flags=("--numbers",),
        param="num",
        label=N_("Compare eager, graph and XLA outputs"),
        help=N_("run each successful call eagerly, as a graph and under XLA, and compare the outputs"),
    )
    tolerance: float = option(
        1e-5,
        flags=("--tolerance",),
        param="tol",
        label=N_("Tolerance"),
        help=N_("with --numbers: two outputs match when |a - b| <= tol + tol * |a| (default 1e-5)"),
        metavar="TOL",
        check=_tolerance,
    )
    passes: bool = option(
        False,
        flags=("--passes",),
        param="passes",
        label=N_("Passes one by one (Grappler and XLA)"),
        help=N_(
            "Grappler's and XLA's passes one by one: what each changed, and what XLA's compile "
            "took and its buffers take"
        ),
    )
    sweep: str | None = option(
        None,
        flags=("--sweep",),
        param="sweep",
        label=N_("Size sweep (optional)"),
        help=N_('with --timing: time the last call at each size, e.g. "x[0]=16,64,256"'),
        metavar="ARG[DIM]=SIZES",
        check=specs.parse_sweep,
    )
    device: str = option(
        "auto",
        flags=("--device",),
        label=N_("Device"),
        choices=DEVICES,
        check=_device,
    )


@dataclass(frozen=True)
class Option:
    """One row of the table, as the front doors read it."""

    name: str
    default: Any
    kind: type  # bool, float or str
    flags: tuple[str, ...]
    param: str | None
    label: str
    help: str
    metavar: str | None
    choices: tuple[str, ...]
    check: Callable[[Any], Any] | None

    def parse_param(self, text: str) -> Any:
        """The value a share link's parameter holds; ValueError for one that is not."""
        if self.kind is bool:
            return text == "1"
        return float(text) if self.kind is float else text

    def param_text(self, value: Any) -> str | None:
        """The parameter's text for a value; None leaves it out of the link."""
        if self.kind is bool:
            return "1" if value else "0"  # always said: an example may have turned it on
        if self.kind is float:
            return f"{float(value or self.default):g}"
        return str(value) if value else None


def _rows() -> tuple[Option, ...]:
    hints = typing.get_type_hints(RunOptions)
    rows = []
    for f in dataclasses.fields(RunOptions):
        hint = hints[f.name]
        kind = next((a for a in typing.get_args(hint) if a is not type(None)), hint)
        rows.append(Option(f.name, f.default, kind, **f.metadata["option"]))
    return tuple(rows)


OPTIONS: tuple[Option, ...] = _rows()
BY_NAME = {o.name: o for o in OPTIONS}
NAMES = tuple(BY_NAME)


def values_of(options: RunOptions) -> dict[str, Any]:
    """The options as keyword arguments, for another RunOptions (a Job from its request)."""
    return {name: getattr(options, name) for name in NAMES}


def check(values: Mapping[str, Any]) -> None:
    """Each option's own check; the first that fails raises a FieldError naming its field."""
    for o in OPTIONS:
        value = values.get(o.name, o.default)
        if o.check is not None and value not in (None, ""):
            as_field(o.name, o.check, value)


def as_field(name: str, check: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """check(*args), its PlaygroundError told as this field's FieldError."""
    try:
        return check(*args, **kwargs)
    except FieldError:
        raise
    except PlaygroundError as error:
        raise FieldError(name, str(error)) from None


class FieldError(SpecError):
    """A request field that cannot run; `field` names it ("calls[1]", "signature")."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def params(values: Mapping[str, Any]) -> dict[str, str]:
    """The share link's query parameters for these option values."""
    out: dict[str, str] = {}
    for o in OPTIONS:
        text = o.param_text(values.get(o.name, o.default)) if o.param else None
        if o.param and text is not None:
            out[o.param] = text
    return out


def from_params(query: Mapping[str, str]) -> dict[str, Any]:
    """The option values a share link sets; a parameter that does not parse is left out."""
    values = {}
    for o in OPTIONS:
        if o.param and o.param in query:
            try:
                values[o.name] = o.parse_param(query[o.param])
            except ValueError:
                continue
    return values
