"""Parses the call-plan grammar: "float32[2,3]" tensor specs, Python literals and name=value calls.

Pure Python (no TensorFlow), so the UI and CLI can reject bad input before a worker starts.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import math
import re
from dataclasses import dataclass

from .errors import SpecError, TensorTooLargeError
from .i18n import _

# TF's canonical dtype names (tf.dtypes.DType.name), plus the aliases TF accepts.
DTYPES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "half",
    "double",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "complex64",
    "complex128",
    "string",
)
DEFAULT_MAX_ELEMENTS = 1 << 24  # 16M elements: 64 MiB of float32
MAX_RANK = 254  # TensorFlow's own (TensorShape's kMaxDims); it also bounds the
# element count's product, which is quadratic in the dims' digits
MAX_DIGITS = 18  # of a dim or size: int() refuses past 4,300
SHOWN_CHARS = 80  # of the offending text, quoted in a message

_SPEC_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]\s*$", re.S)
KEYWORD_RE = re.compile(  # name=value: one argument by keyword
    r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)$", re.S
)


@dataclass(frozen=True)
class Values:
    """How a tensor argument's values are made, when not the default random ones: `kind` and its
    numbers, as TensorFlow names them. ones, zeros: (); fill: (value,); range: (start, limit,
    delta); eye: (rows, columns); uniform: (low, high), half-open; normal: (mean, stddev).
    `seed`: the tf.random forms' own seed=, in place of the call's."""

    kind: str
    numbers: tuple[object, ...] = ()
    seed: int | None = None

    @property
    def random(self) -> bool:
        return self.kind in ("uniform", "normal")


@dataclass(frozen=True)
class TensorSpec:
    """A tensor argument or signature entry: dtype plus dims, None for a dynamic dim; `values`
    when the call plan says how its values are made (tf.ones([3]), int32[8] in [0, 10))."""

    dtype: str
    shape: tuple[int | None, ...]
    values: Values | None = None

    def __str__(self) -> str:
        """The canonical text: it parses back to this spec."""
        if self.values is not None:
            return _values_text(self)
        dims = ",".join("None" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"

    @property
    def num_elements(self) -> int:
        return math.prod(d or 0 for d in self.shape) if self.shape else 1


@dataclass(frozen=True)
class PyValue:
    """A Python literal argument, e.g. 1, 2.5, True, "a" or None."""

    value: object
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class TensorValue:
    """A tensor with given values, as the call plan writes one: tf.constant(0.01),
    tf.constant([[1, 2], [3, 4]], tf.float32) or tf.Variable(0.01). The values are literals
    (read with ast.literal_eval, never run); `maker` is "constant" or "Variable"."""

    maker: str
    value: object
    dtype: str | None
    text: str

    def __str__(self) -> str:
        return self.text

    def expression(self) -> str:
        """The same tensor in plain TensorFlow: tf.constant(0.01, tf.float32)."""
        dtype = f", tf.{self.dtype}" if self.dtype else ""
        return f"tf.{self.maker}({self.value!r}{dtype})"

    @property
    def num_elements(self) -> int:
        return _leaves(self.value)


def _leaves(value: object) -> int:
    if isinstance(value, (list, tuple)):
        return sum(_leaves(v) for v in value)
    return 1


@dataclass(frozen=True)
class FromCode:
    """An argument the pasted code makes: make_batch(32) calls the function of that name that the
    code defines, in the sandbox, on these literal arguments, and passes what it returns;
    *make_batch(32) (spread) passes the items it returns as the call's positional arguments."""

    name: str
    args: tuple[object, ...] = ()
    kwargs: tuple[tuple[str, object], ...] = ()
    spread: bool = False

    def __str__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{'*' if self.spread else ''}{self.name}({', '.join(parts)})"

    @property
    def num_elements(self) -> int:
        return 0  # unknown until it runs: the engine counts what it returns


Arg = TensorSpec | PyValue | TensorValue | FromCode


@dataclass(frozen=True)
class CallSpec:
    """One call of the plan: positional and keyword arguments, in the order given."""

    args: tuple[Arg, ...] = ()
    kwargs: tuple[tuple[str, Arg], ...] = ()

    def __str__(self) -> str:
        parts = [str(a) for a in self.args] + [f"{k}={v}" for k, v in self.kwargs]
        return ", ".join(parts)

    @property
    def num_elements(self) -> int:
        every = list(self.args) + [v for _, v in self.kwargs]
        return sum(a.num_elements for a in every if isinstance(a, (TensorSpec, TensorValue)))

    @property
    def spread(self) -> bool:
        """*make_batch(32): its positional arguments are known only once the code has run."""
        return any(isinstance(a, FromCode) and a.spread for a in self.args)


_COUNT_RE = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}")
_DIGITS_RE = re.compile(r"[0-9]+")


def is_count(text: str) -> bool:
    """ASCII digits only, and few enough for int(): str.isdigit() also accepts '²', which int()
    refuses, and int() refuses more than 4,300 digits."""
    return _COUNT_RE.fullmatch(text) is not None


def shown(text: str) -> str:
    """The text quoted in a message, cut short: a request may hold megabytes of it."""
    return repr(_cut(text.strip()))


# The characters split_top_level acts on; the loop visits only these (a regex finds them in C),
# so text between them (a long string, a long number) costs no Python step per character.
_STRUCTURE_RE = re.compile(r"""['"\[\](){},]""")


def split_top_level(text: str) -> list[str]:
    """Splits on commas that are not inside brackets, parentheses or quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for found in _STRUCTURE_RE.finditer(text):
        i, ch = found.start(), found.group()
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
            if depth < 0:
                raise SpecError(_("unbalanced {char} in {text}").format(char=f"'{ch}'", text=repr(text)))
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if quote:
        raise SpecError(_("unterminated string in {text}").format(text=repr(text)))
    if depth:
        raise SpecError(_("unclosed bracket in {text}").format(text=repr(text)))
    parts.append(text[start:])
    return parts


# Python's and C's names for a dtype, and the one TensorFlow means by default.
_MEANT = {"float": "float32", "int": "int32", "long": "int64", "str": "string"}


def parse_dtype(name: str, context: str) -> str:
    if name in DTYPES:
        return name
    close = [_MEANT[name]] if name in _MEANT else difflib.get_close_matches(name, DTYPES, n=1)
    hint = (
        _(" (did you mean {dtype}?)").format(dtype=close[0])
        if close
        else _("; known dtypes: {dtypes}").format(dtypes=", ".join(DTYPES))
    )
    raise SpecError(
        _("unknown dtype {name} in {context}").format(name=repr(name), context=repr(context)) + hint
    )


def parse_tensor_spec(
    text: str, *, allow_dynamic: bool = False, max_elements: int = DEFAULT_MAX_ELEMENTS
) -> TensorSpec:
    """Parses "float32[2,3]"; None dims only where allow_dynamic (input signatures)."""
    m = _SPEC_RE.match(text)
    if not m:
        raise SpecError(
            _("expected DTYPE[DIMS] such as float32[2,3], got {text}").format(text=repr(text.strip()))
        )
    dtype = parse_dtype(m.group(1), text.strip())
    dims_text = m.group(2).strip()
    shape: list[int | None] = []
    if dims_text:
        raws = dims_text.split(",")
        if len(raws) > MAX_RANK:
            raise SpecError(
                _("{text} has {n} dimensions; TensorFlow allows at most {limit}").format(
                    text=shown(text), n=len(raws), limit=MAX_RANK
                )
            )
        for raw in raws:
            dim = raw.strip()
            if dim in ("None", "?", "-1") and allow_dynamic:
                shape.append(None)
            elif is_count(dim):
                shape.append(int(dim))
            elif _DIGITS_RE.fullmatch(dim):
                raise SpecError(
                    _("dim {dim} in {text} is too large: at most {digits} digits").format(
                        dim=shown(dim), text=shown(text), digits=MAX_DIGITS
                    )
                )
            elif dim in ("None", "?", "-1"):
                raise SpecError(
                    _(
                        "dynamic dim {dim} in {text}: a call needs concrete sizes; use None only in "
                        "--signature"
                    ).format(dim=repr(dim), text=repr(text.strip()))
                )
            else:
                raise SpecError(
                    (
                        _("malformed dim {dim} in {text}: dims are non-negative integers or None")
                        if allow_dynamic
                        else _("malformed dim {dim} in {text}: dims are non-negative integers")
                    ).format(dim=repr(dim), text=repr(text.strip()))
                )
    spec = TensorSpec(dtype, tuple(shape))
    check_size(spec.num_elements, str(spec), max_elements)
    return spec


def check_size(elements: int, what: str, max_elements: int) -> None:
    if elements > max_elements:
        raise TensorTooLargeError(
            _(
                "{what} has {elements} elements, over the cap of {cap} "
                "(PLAYGROUND_MAX_TENSOR_ELEMENTS); use a smaller shape"
            ).format(what=_cut(what), elements=_count_text(elements), cap=f"{max_elements:,}")
        )


INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
    "uint8": (0, (1 << 8) - 1),
    "uint16": (0, (1 << 16) - 1),
    "uint32": (0, (1 << 32) - 1),
    "uint64": (0, (1 << 64) - 1),
}
FLOATS = ("float16", "half", "bfloat16", "float32", "float64", "double")
FLOAT_MAX = {
    "float16": 65504.0,
    "half": 65504.0,
    "bfloat16": 3.3895313892515355e38,
    "float32": 3.4028234663852886e38,
    "float64": 1.7976931348623157e308,
    "double": 1.7976931348623157e308,
}


def literal_dtype(values: tuple[object, ...]) -> str:
    """The dtype TensorFlow gives Python numbers together, as tf.range and tf.fill infer it: a
    float makes float32, ints int32, or int64 past int32's range (bool, complex, str their own)."""
    if any(type(v) is bool for v in values):
        return "bool"
    if any(isinstance(v, (str, bytes)) for v in values):
        return "string"
    if any(type(v) is complex for v in values):
        return "complex128"
    if any(type(v) is float for v in values):
        return "float32"
    low, high = INT_RANGES["int32"]
    return "int32" if all(low <= v <= high for v in values) else "int64"  # type: ignore[operator]


def _values_text(spec: TensorSpec) -> str:
    """tf.ones([2, 3]), int32[8] in [0, 10), tf.range(1, 5): what was written, in one spelling,
    the dtype only where it is not the one the form infers."""
    made, dtype, shape = spec.values, spec.dtype, repr(list(spec.shape))
    assert made is not None
    numbers, seed = made.numbers, "" if made.seed is None else f", seed={made.seed}"
    if made.kind in ("ones", "zeros"):
        return f"tf.{made.kind}({shape}{'' if dtype == 'float32' else f', tf.{dtype}'})"
    if made.kind == "fill":
        return f"tf.fill({shape}, {numbers[0]!r})"
    if made.kind == "range":
        start, limit, delta = numbers
        shown = [start, limit, delta] if delta != 1 else [start, limit] if start != 0 else [limit]
        named = "" if literal_dtype(tuple(shown)) == dtype else f", dtype=tf.{dtype}"
        return f"tf.range({', '.join(map(repr, shown))}{named})"
    named = "" if dtype == "float32" else f", dtype=tf.{dtype}"
    if made.kind == "eye":
        rows, columns = numbers
        return f"tf.eye({rows}{'' if columns == rows else f', {columns}'}{named})"
    if made.kind == "uniform":
        low, high = numbers
        if made.seed is None:
            return f"{TensorSpec(dtype, spec.shape)} in [{low!r}, {high!r})"
        return f"tf.random.uniform({shape}, {low!r}, {high!r}{named}{seed})"
    mean, stddev = numbers
    given = (f", mean={mean!r}" if mean != 0 else "") + (f", stddev={stddev!r}" if stddev != 1 else "")
    return f"tf.random.{made.kind}({shape}{given}{named}{seed})"


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def _count_text(count: int) -> str:
    """1,000,000; or, past what str() of an int may show (4,300 digits), its power of ten."""
    if count < 10**30:
        return f"{count:,}"
    return f"~10^{int((count.bit_length() - 1) * math.log10(2))}"


def is_keyword(part: str) -> bool:
    """Whether one argument of a call is name=value (float32[3] and "a=b" strings are not)."""
    return bool(KEYWORD_RE.match(part)) and not _SPEC_RE.match(part.strip())


PLACEHOLDER = "?"  # an argument the plan leaves for the person to write (contract/plan_fit.py)
_MAKER_RE = re.compile(r"^(?:tf\.)?(constant|Variable)\s*\((.*)\)$", re.S)


def parse_value(text: str, *, max_elements: int = DEFAULT_MAX_ELEMENTS) -> Arg:
    """Parses one argument: a tensor spec, tf.constant(...) or tf.Variable(...) of a literal,
    or a Python literal."""
    stripped = text.strip()
    if not stripped:
        raise SpecError(_("empty argument (two commas in a row?)"))
    if stripped == PLACEHOLDER:
        raise SpecError(
            _("{mark} marks an argument still to write: a tensor spec such as float32[3], or a value").format(
                mark=PLACEHOLDER
            )
        )
    made = _MAKER_RE.match(stripped)
    if made:
        return _tensor_value(made.group(1), made.group(2), stripped, max_elements)
    from . import forms  # it builds on this module's parsers

    form = forms.parse_form(stripped, max_elements)
    if form is not None:
        return form
    if _SPEC_RE.match(stripped) and not stripped.startswith(("[", "(")):
        return parse_tensor_spec(stripped, max_elements=max_elements)
    return PyValue(_literal(stripped), stripped)


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        raise SpecError(
            _(
                "cannot read argument {text}: use DTYPE[DIMS] (e.g. float32[3] or int32[3] in [0, 10)), "
                "tf.constant(0.5), tf.Variable(0.5), tf.ones([3]), a function of your code "
                '(make_batch(32)) or a Python literal (1, 2.5, True, "a", None)'
            ).format(text=shown(text))
        ) from None


def _tensor_value(maker: str, inner: str, text: str, max_elements: int) -> TensorValue:
    """tf.constant(VALUE[, DTYPE]) or tf.constant(VALUE, dtype=DTYPE); DTYPE as tf.float32,
    float32 or "float32"."""
    parts = split_top_level(inner)
    value = _literal(parts[0])
    dtype = None
    if len(parts) == 2:
        named = KEYWORD_RE.match(parts[1])
        if named and named.group(1) != "dtype":
            raise SpecError(
                _("tf.{maker} takes a value and a dtype here, not {name}: {text}").format(
                    maker=maker, name=repr(named.group(1)), text=shown(text)
                )
            )
        raw = (named.group(2) if named else parts[1]).strip().strip("'\"")
        dtype = parse_dtype(raw.removeprefix("tf."), text)
    elif len(parts) > 2:
        raise SpecError(
            _("tf.{maker} takes a value and a dtype here: {text}").format(maker=maker, text=shown(text))
        )
    if not _is_values(value):
        raise SpecError(
            _("tf.{maker} needs numbers, booleans or strings, or lists of them: {text}").format(
                maker=maker, text=shown(text)
            )
        )
    made = TensorValue(maker, value, dtype, text)
    check_size(made.num_elements, text, max_elements)
    return made


def _is_values(value: object) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_is_values(v) for v in value)
    return isinstance(value, (bool, int, float, complex, str, bytes))


NO_ARGUMENTS = "()"


def parse_call(text: str, *, max_elements: int = DEFAULT_MAX_ELEMENTS) -> CallSpec:
    """Parses "float32[3], n=2": positional arguments first, then name=value. "" and "()" are a
    call with no arguments ("()" is how a plan, one call per line, writes one)."""
    if text.strip() in ("", NO_ARGUMENTS):
        return CallSpec()
    args: list[Arg] = []
    kwargs: list[tuple[str, Arg]] = []
    for part in split_top_level(text):
        m = KEYWORD_RE.match(part)
        if m and is_keyword(part):
            name = m.group(1)
            if any(k == name for k, _value in kwargs):
                raise SpecError(
                    _("argument {name} given twice in {text}").format(
                        name=repr(name), text=repr(text.strip())
                    )
                )
            kwargs.append((name, parse_value(m.group(2), max_elements=max_elements)))
        elif kwargs:
            raise SpecError(
                _("positional argument {part} after a keyword argument in {text}").format(
                    part=repr(part.strip()), text=repr(text.strip())
                )
            )
        else:
            args.append(parse_value(part, max_elements=max_elements))
    spread = [a for a in [*args, *(v for _k, v in kwargs)] if isinstance(a, FromCode) and a.spread]
    if spread and (len(args) != 1 or args[0] is not spread[0]):
        raise SpecError(
            _(
                "{spread} stands for all of a call's positional arguments: write it alone, keyword "
                "arguments after it, in {text}"
            ).format(spread=shown(str(spread[0])), text=shown(text))
        )
    call = CallSpec(tuple(args), tuple(kwargs))
    check_size(call.num_elements, f"call ({text.strip()})", max_elements)
    return call


def parse_signature(text: str) -> tuple[TensorSpec, ...]:
    """Parses an input_signature: "float32[None,28,28,1], int32[None]"."""
    if not text.strip():
        return ()
    return tuple(
        parse_tensor_spec(p, allow_dynamic=True, max_elements=math.inf)  # type: ignore[arg-type]
        for p in split_top_level(text)
    )


_SWEEP_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*|[0-9]{1,18})\s*\[\s*([0-9]{1,18})\s*\]\s*=\s*(.+)$")
MAX_SWEEP_POINTS = 12


@dataclass(frozen=True)
class Sweep:
    """A size sweep: argument (name or position), which dimension, and the sizes to try."""

    arg: str | int
    dim: int
    sizes: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.arg}[{self.dim}]={','.join(map(str, self.sizes))}"


def parse_sweep(text: str) -> Sweep:
    """Parses "x[0]=16,64,256" (by name) or "0[1]=8,32" (by position)."""
    m = _SWEEP_RE.match(text)
    if not m:
        raise SpecError(
            _("expected ARG[DIM]=SIZE,SIZE,... such as x[0]=16,64,256, got {text}").format(text=repr(text))
        )
    sizes = []
    for raw in m.group(3).split(","):
        if not is_count(raw.strip()) or int(raw) <= 0:
            raise SpecError(
                _("sweep size {size} in {text} is not a positive integer").format(
                    size=repr(raw.strip()), text=repr(text)
                )
            )
        sizes.append(int(raw))
    if len(sizes) > MAX_SWEEP_POINTS:
        raise SpecError(
            _("{n} sweep sizes in {text}; at most {limit}").format(
                n=len(sizes), text=repr(text), limit=MAX_SWEEP_POINTS
            )
        )
    arg: str | int = int(m.group(1)) if is_count(m.group(1)) else m.group(1)
    return Sweep(arg, int(m.group(2)), tuple(sizes))


def resize(call: CallSpec, sweep: Sweep, size: int, max_elements: int = DEFAULT_MAX_ELEMENTS) -> CallSpec:
    """The call with the swept dimension set to `size`; names the problem if it cannot be."""
    args, kwargs = list(call.args), dict(call.kwargs)
    if isinstance(sweep.arg, int):
        if sweep.arg >= len(args):
            raise SpecError(
                _("sweep argument {arg} but the call ({call}) has {n} positional argument(s)").format(
                    arg=sweep.arg, call=call, n=len(args)
                )
            )
        target = args[sweep.arg]
    elif sweep.arg in kwargs:
        target = kwargs[sweep.arg]
    else:
        raise SpecError(
            _(
                "sweep argument {arg} is not a keyword of the call ({call}); use its position, e.g. 0[0]=..."
            ).format(arg=repr(sweep.arg), call=call)
        )
    if any(isinstance(a, FromCode) for a in [*args, *kwargs.values()]):
        raise SpecError(
            _("a size sweep cannot resize a call that your code makes arguments for ({call})").format(
                call=shown(str(call))
            )
        )
    if not isinstance(target, TensorSpec) or sweep.dim >= len(target.shape):
        raise SpecError(_("argument {arg} has no dimension {dim}").format(arg=target, dim=sweep.dim))
    if target.values is not None and target.values.kind in ("range", "eye"):
        raise SpecError(
            _(
                "cannot resize {arg}: its numbers set its shape; sweep a tensor such as float32[8] "
                "or tf.ones([8])"
            ).format(arg=target)
        )
    shape = list(target.shape)
    shape[sweep.dim] = size
    resized = dataclasses.replace(target, shape=tuple(shape))
    check_size(resized.num_elements, str(resized), max_elements)
    if isinstance(sweep.arg, int):
        args[sweep.arg] = resized
    else:
        kwargs[sweep.arg] = resized
    return CallSpec(tuple(args), tuple(kwargs.items()))
