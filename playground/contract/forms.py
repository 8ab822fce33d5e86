"""Parses the call plan's ways to say a tensor's values, and the arguments the pasted code makes:
tf.ones([3]), tf.zeros, tf.fill, tf.range, tf.eye, tf.random.uniform and tf.random.normal as
TensorFlow spells them, int32[8] in [0, 10) (bounds), and make_batch(32) (a function of the code).

Each is read with ast.literal_eval (never run) into a specs.TensorSpec with `values`, or a
specs.FromCode, its shape known and counted against the element cap before anything is made. The
dtypes and shapes are TensorFlow's own (tests/unit/contract/test_forms.py checks them against it).
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import struct

from . import specs
from .errors import SpecError
from .i18n import _
from .specs import FLOAT_MAX, FLOATS, INT_RANGES, FromCode, TensorSpec, Values

FORMS = ("ones", "zeros", "fill", "range", "eye", "random.uniform", "random.normal")
# Each form's parameters, in TensorFlow's order (a name= may pass any of them).
PARAMS = {
    "ones": ("shape", "dtype"),
    "zeros": ("shape", "dtype"),
    "fill": ("dims", "value"),
    "range": ("start", "limit", "delta", "dtype"),
    "eye": ("num_rows", "num_columns", "dtype"),
    "random.uniform": ("shape", "minval", "maxval", "dtype", "seed"),
    "random.normal": ("shape", "mean", "stddev", "dtype", "seed"),
}
# The dtypes TensorFlow's kernels take (on CPU, for tf.range).
RANDOM_DTYPES = {"random.uniform": (*FLOATS, "int32", "int64"), "random.normal": FLOATS}
RANGE_DTYPES = (*FLOATS, "int32", "int64")

_FORM_RE = re.compile(r"^tf\s*\.\s*([A-Za-z_][\w.]*)\s*\((.*)\)$", re.S)
_BOUNDED_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*\s*\[[^\[\]]*\])\s*in\b\s*(.*)$", re.S)
_CODE_RE = re.compile(r"^(\*?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)$", re.S)


def parse_form(text: str, max_elements: int) -> TensorSpec | FromCode | None:
    """The argument, when `text` is one of these forms; None when it is none of them (a spec,
    a tf.constant or a literal, read by specs.parse_value)."""
    bounded = _BOUNDED_RE.match(text)
    if bounded:
        return _bounded(bounded.group(1), bounded.group(2).strip(), text, max_elements)
    form = _FORM_RE.match(text)
    if form:
        name = re.sub(r"\s+", "", form.group(1))
        if name not in FORMS:
            raise SpecError(
                _("tf.{name} is not a form the call plan reads; it reads {forms}: {text}").format(
                    name=name,
                    forms=", ".join(f"tf.{f}" for f in ("constant", "Variable", *FORMS)),
                    text=specs.shown(text),
                )
            )
        return _form(name, form.group(2), text, max_elements)
    code = _CODE_RE.match(text)
    if code and not keyword.iskeyword(code.group(2)):
        return _from_code(code.group(2), code.group(3), bool(code.group(1)), text)
    return None


def _bind(form: str, inner: str, text: str) -> dict[str, str]:
    """The form's arguments by parameter name, as written."""
    params, given = PARAMS[form], {}
    parts = specs.split_top_level(inner) if inner.strip() else []
    for position, part in enumerate(parts):
        named = specs.KEYWORD_RE.match(part)
        if named:
            name, value = named.group(1), named.group(2)
            if name not in params:
                raise SpecError(
                    _("tf.{form} takes {params} here, not {name}: {text}").format(
                        form=form, params=", ".join(params), name=repr(name), text=specs.shown(text)
                    )
                )
        elif any(specs.KEYWORD_RE.match(p) for p in parts[:position]):
            raise SpecError(
                _("positional argument {part} after a keyword argument in {text}").format(
                    part=repr(part.strip()), text=specs.shown(text)
                )
            )
        elif position >= len(params):
            raise SpecError(
                _("tf.{form} takes {params} here: {text}").format(
                    form=form, params=", ".join(params), text=specs.shown(text)
                )
            )
        else:
            name, value = params[position], part
        if name in given:
            raise SpecError(
                _("argument {name} given twice in {text}").format(name=repr(name), text=specs.shown(text))
            )
        given[name] = value.strip()
    return given


def _literal(raw: str, what: str, text: str) -> object:
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        raise SpecError(
            _("{what} needs a literal, got {raw} in {text}").format(
                what=what, raw=specs.shown(raw), text=specs.shown(text)
            )
        ) from None


def _shape(raw: str | None, form: str, text: str) -> tuple[int, ...]:
    try:
        value = None if raw is None else ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        value = None
    dims = [value] if type(value) is int else value
    if not (
        isinstance(dims, (list, tuple))
        and len(dims) <= specs.MAX_RANK
        and all(type(d) is int and 0 <= d < 10**specs.MAX_DIGITS for d in dims)
    ):
        raise SpecError(
            _("tf.{form} needs a shape such as [3], got {raw}").format(
                form=form, raw=specs.shown(raw or "nothing")
            )
        )
    return tuple(dims)


def _number(raw: str, what: str, text: str, *, ints: bool = False) -> int | float:
    value = _literal(raw, what, text)
    if type(value) not in ((int,) if ints else (int, float)) or (
        type(value) is float and not math.isfinite(value)
    ):
        kind = _("an int") if ints else _("a finite number")
        raise SpecError(
            _("{what} needs {kind}, got {raw} in {text}").format(
                what=what, kind=kind, raw=specs.shown(raw), text=specs.shown(text)
            )
        )
    return value  # type: ignore[return-value]


def _dtype(raw: str | None, text: str, default: str) -> str:
    if raw is None:
        return default
    name = raw.strip().strip("'\"").removeprefix("tf.").removeprefix("dtypes.")
    return specs.parse_dtype(name, text)


def _seed(raw: str | None, form: str, text: str) -> int | None:
    if raw is None:
        return None
    seed = _number(raw, f"tf.{form}'s seed", text, ints=True)
    if seed < 0 or seed >= 10**specs.MAX_DIGITS:
        raise SpecError(
            _("a seed is a non-negative int of at most {digits} digits: {text}").format(
                digits=specs.MAX_DIGITS, text=specs.shown(text)
            )
        )
    return int(seed)


def _allowed(form: str, dtype: str, dtypes: tuple[str, ...], text: str) -> None:
    if dtype not in dtypes:
        raise SpecError(
            _("tf.{form} makes {dtypes}, not {dtype}: {text}").format(
                form=form, dtypes=", ".join(dtypes), dtype=dtype, text=specs.shown(text)
            )
        )


def _no_strings(form: str, text: str) -> None:
    raise SpecError(_("tf.{form} makes no string tensors: {text}").format(form=form, text=specs.shown(text)))


def _form(form: str, inner: str, text: str, max_elements: int) -> TensorSpec:
    given = _bind(form, inner, text)
    if form in ("ones", "zeros"):
        shape, dtype = _shape(given.get("shape"), form, text), _dtype(given.get("dtype"), text, "float32")
        if dtype == "string" and form == "ones":
            _no_strings(form, text)
        spec = TensorSpec(dtype, shape, Values(form))
    elif form == "fill":
        shape = _shape(given.get("dims"), form, text)
        value = _literal(given["value"], "tf.fill", text) if "value" in given else None
        if not isinstance(value, (bool, int, float, complex, str, bytes)) or (
            type(value) is float and not math.isfinite(value)
        ):
            raise SpecError(
                _("tf.fill needs a shape and one value, such as tf.fill([2, 3], 1.5): {text}").format(
                    text=specs.shown(text)
                )
            )
        dtype = specs.literal_dtype((value,))
        _in_dtype((value,), dtype, text)
        spec = TensorSpec(dtype, shape, Values(form, (value,)))
    elif form == "range":
        spec = _range(given, text)
    elif form == "eye":
        if "num_rows" not in given:
            raise SpecError(
                _("tf.eye needs a number of rows, such as tf.eye(3): {text}").format(text=specs.shown(text))
            )
        rows = _count(given["num_rows"], "tf.eye", text)
        columns = _count(given["num_columns"], "tf.eye", text) if "num_columns" in given else rows
        dtype = _dtype(given.get("dtype"), text, "float32")
        if dtype == "string":
            _no_strings(form, text)
        spec = TensorSpec(dtype, (rows, columns), Values(form, (rows, columns)))
    else:
        spec = _random(form, given, text)
    specs.check_size(spec.num_elements, text, max_elements)
    return spec


def _count(raw: str, what: str, text: str) -> int:
    value = _number(raw, what, text, ints=True)
    if not 0 <= value < 10**specs.MAX_DIGITS:
        raise SpecError(
            _("{what} needs a non-negative int, got {raw} in {text}").format(
                what=what, raw=specs.shown(raw), text=specs.shown(text)
            )
        )
    return int(value)


def _range(given: dict[str, str], text: str) -> TensorSpec:
    """tf.range(LIMIT) or tf.range(START, LIMIT[, DELTA]), and its length as TF's kernel counts it."""
    if "limit" not in given and "start" not in given:
        raise SpecError(
            _("tf.range needs a limit, such as tf.range(5): {text}").format(text=specs.shown(text))
        )
    if "limit" not in given:  # tf.range(5): the one number is the limit
        given = dict(given)
        given["limit"] = given.pop("start")
    start = _number(given["start"], "tf.range", text) if "start" in given else 0
    limit = _number(given["limit"], "tf.range", text)
    delta = _number(given["delta"], "tf.range", text) if "delta" in given else 1
    numbers = (start, limit, delta)
    dtype = _dtype(given.get("dtype"), text, specs.literal_dtype(numbers))
    _allowed("range", dtype, RANGE_DTYPES, text)
    _in_dtype(numbers, dtype, text)
    if delta == 0:
        raise SpecError(_("tf.range needs a delta other than 0: {text}").format(text=specs.shown(text)))
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise SpecError(
            _(
                "tf.range needs start <= limit when delta > 0, and start >= limit when delta < 0: {text}"
            ).format(text=specs.shown(text))
        )
    if dtype in FLOATS:  # as the kernel computes it, in the dtype: ceil(|(limit - start) / delta|)
        try:
            low, high, step = (_rounded(n, dtype) for n in numbers)
            size = int(math.ceil(abs(_rounded(_rounded(high - low, dtype) / step, dtype))))
        except (OverflowError, ZeroDivisionError):
            raise SpecError(
                _("tf.range has more values than {dtype} can count: {text}").format(
                    dtype=dtype, text=specs.shown(text)
                )
            ) from None
    else:
        size = int((abs(limit - start) + abs(delta) - 1) // abs(delta))
    return TensorSpec(dtype, (int(size),), Values("range", numbers))


def _rounded(number: float, dtype: str) -> float:
    """The number as `dtype` holds it (struct packs IEEE half and single, rounding to nearest even)."""
    if dtype == "float32":
        return float(struct.unpack("f", struct.pack("f", number))[0])
    if dtype in ("float16", "half"):
        return float(struct.unpack("e", struct.pack("e", number))[0])
    if dtype == "bfloat16":  # the top half of a float32, rounded to nearest even
        (bits,) = struct.unpack("I", struct.pack("f", number))
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
        return float(struct.unpack("f", struct.pack("I", bits & 0xFFFFFFFF))[0])
    return float(number)


def _in_dtype(numbers: tuple[object, ...], dtype: str, text: str) -> None:
    """Each number fits the dtype: an int dtype takes ints in its range, a float one finite
    numbers below its largest."""
    for number in numbers:
        if dtype in INT_RANGES:
            low, high = INT_RANGES[dtype]
            fits = type(number) is int and low <= number <= high
        elif dtype in FLOAT_MAX:
            fits = type(number) in (int, float) and abs(number) <= FLOAT_MAX[dtype]  # type: ignore[arg-type]
        else:
            fits = True
        if not fits:
            raise SpecError(
                _("{number} is not a {dtype} in {text}").format(
                    number=repr(number), dtype=dtype, text=specs.shown(text)
                )
            )


def _random(form: str, given: dict[str, str], text: str) -> TensorSpec:
    shape = _shape(given.get("shape"), form, text)
    dtype = _dtype(given.get("dtype"), text, "float32")
    _allowed(form, dtype, RANDOM_DTYPES[form], text)
    seed = _seed(given.get("seed"), form, text)
    if form == "random.normal":
        mean = _number(given["mean"], "tf.random.normal's mean", text) if "mean" in given else 0.0
        stddev = _number(given["stddev"], "tf.random.normal's stddev", text) if "stddev" in given else 1.0
        if stddev < 0:
            raise SpecError(
                _("stddev {stddev} is negative in {text}").format(stddev=stddev, text=specs.shown(text))
            )
        _in_dtype((mean, stddev), dtype, text)
        return TensorSpec(dtype, shape, Values("normal", (mean, stddev), seed))
    ints = dtype in INT_RANGES
    if ints and "maxval" not in given:
        raise SpecError(
            _(
                "tf.random.uniform of {dtype} needs maxval, as in TensorFlow: "
                "tf.random.uniform([3], 0, 10, dtype=tf.{dtype})"
            ).format(dtype=dtype)
        )
    what = "tf.random.uniform"
    low = _number(given["minval"], what, text, ints=ints) if "minval" in given else 0
    high = _number(given["maxval"], what, text, ints=ints) if "maxval" in given else 1
    return TensorSpec(dtype, shape, Values("uniform", _half_open(low, high, dtype, text), seed))


def _half_open(low: int | float, high: int | float, dtype: str, text: str) -> tuple[int | float, int | float]:
    if low >= high:
        raise SpecError(
            _("low {low} is not below high {high} in {text}").format(
                low=low, high=high, text=specs.shown(text)
            )
        )
    smallest: int | float
    largest: int | float
    if dtype in INT_RANGES:  # the largest value made is high - 1; numpy draws int64
        smallest, largest = max(INT_RANGES[dtype][0], -(1 << 63)), min(INT_RANGES[dtype][1], (1 << 63) - 1)
    else:
        smallest, largest = -FLOAT_MAX[dtype], FLOAT_MAX[dtype]
    if low < smallest or (high - 1 if dtype in INT_RANGES else high) > largest:
        raise SpecError(
            _("bounds [{low}, {high}) do not fit {dtype}, {smallest} to {largest}: {text}").format(
                low=low, high=high, dtype=dtype, smallest=smallest, largest=largest, text=specs.shown(text)
            )
        )
    return low, high


def _bounded(spec_text: str, bounds: str, text: str, max_elements: int) -> TensorSpec:
    """int32[8] in [0, 10) (half-open); for ints also [0, 9] (closed)."""
    spec = specs.parse_tensor_spec(spec_text, max_elements=max_elements)
    closed = bounds.endswith("]")
    if not (bounds.startswith("[") and bounds.endswith((")", "]"))):
        raise SpecError(
            _(
                "bounds are written [low, high), or [low, high] for ints, such as {example}: got {text}"
            ).format(example=f"{spec} in [0, 10)", text=specs.shown(text))
        )
    parts = specs.split_top_level(bounds[1:-1])
    if len(parts) != 2:
        raise SpecError(
            _("bounds need a low and a high, such as [0, 10): {text}").format(text=specs.shown(text))
        )
    ints = spec.dtype in INT_RANGES
    if not ints and spec.dtype not in FLOATS:
        raise SpecError(
            _("bounds need an int or float dtype, not {dtype}: {text}").format(
                dtype=spec.dtype, text=specs.shown(text)
            )
        )
    if closed and not ints:
        raise SpecError(
            _("a float tensor's bounds are half-open, such as [0, 1): {text}").format(text=specs.shown(text))
        )
    what = _("a bound of {dtype}").format(dtype=spec.dtype)
    low, high = (_number(p, what, text, ints=ints) for p in parts)
    if closed:
        if low > high:
            raise SpecError(
                _("low {low} is above high {high} in {text}").format(
                    low=low, high=high, text=specs.shown(text)
                )
            )
        high += 1
    return TensorSpec(spec.dtype, spec.shape, Values("uniform", _half_open(low, high, spec.dtype, text)))


def _from_code(name: str, inner: str, spread: bool, text: str) -> FromCode:
    """make_batch(32, n=2): a function of the pasted code, called with literals only."""
    args: list[object] = []
    kwargs: list[tuple[str, object]] = []
    for part in specs.split_top_level(inner) if inner.strip() else []:
        named = specs.KEYWORD_RE.match(part)
        raw = named.group(2) if named else part
        try:
            value = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            raise SpecError(
                _(
                    "{name}(...) calls a function of your code with literal arguments only (numbers, "
                    "strings, lists), got {raw} in {text}"
                ).format(name=name, raw=specs.shown(raw), text=specs.shown(text))
            ) from None
        if named:
            kwargs.append((named.group(1), value))
        elif kwargs:
            raise SpecError(
                _("positional argument {part} after a keyword argument in {text}").format(
                    part=repr(part.strip()), text=specs.shown(text)
                )
            )
        else:
            args.append(value)
    return FromCode(name, tuple(args), tuple(kwargs), spread)
