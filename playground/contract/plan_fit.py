"""Whether a call of the plan fits the function it calls, said in words before a run starts
("train_step takes x, y, lr, step; this call passes 1 argument, without y"), and the call a
function's own parameters suggest: its input_signature, defaults and annotations, and a "?" to
fill in where they say nothing. Pure Python: the page, the API and the CLI check with it."""

from __future__ import annotations

import ast

from . import specs
from .i18n import _
from .source_info import FunctionInfo
from .specs import CallSpec

# What an annotation says a first call could pass; anything else is left to the person ("?").
ANNOTATED = {
    "int": "1",
    "float": "0.5",
    "bool": "True",
    "str": '"a"',
}
TENSOR_ANNOTATIONS = ("Tensor", "ndarray", "Variable")
TENSOR_GUESS = "float32[2,3]"  # a batch of 2 rows of 3: what a Keras layer takes, and x * 2 too
# Labels, classes and indices: ints a loss or a gather takes, so never negative.
LABEL_NAMES = frozenset(
    ("y", "labels", "label", "targets", "target", "classes", "class_ids", "idx", "indices", "index")
    + ("ids", "y_true", "sparse_labels", "positions", "tokens", "token_ids")
)
BOUNDS = " in [0, 10)"
LABEL_GUESS = "int32[2]" + BOUNDS  # one per row of TENSOR_GUESS
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def is_label(param: str) -> bool:
    """Whether a parameter's name says it takes labels, classes or indices (y, labels, idx...)."""
    return param.lower() in LABEL_NAMES


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult)


def int_labels(info: FunctionInfo, source: str) -> set[str]:
    """The parameters to pass as non-negative ints: named as labels, classes or indices, unless
    the function's body does arithmetic on them (a regression's `(x - y) ** 2` takes a float y,
    as x is; a classifier's loss_fn(y, logits) int labels). Read with ast, never run."""
    labels = {p for p in info.params if is_label(p)}
    if not labels or not source:
        return labels
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return labels
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    body = next((n for n in ast.walk(tree) if isinstance(n, defs) and n.lineno == info.line), None)
    for node in ast.walk(body) if body is not None else ():
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            labels -= {side.id for side in (node.left, node.right) if isinstance(side, ast.Name)}
    return labels


DYNAMIC_SIZE = 2  # a None dim of the function's input_signature, in a suggested call


def _names(names: list[str]) -> str:
    return ", ".join(names)


def mismatch(call: CallSpec, info: FunctionInfo) -> str:
    """Why `call` cannot bind to the function's parameters, as Python would refuse it; "" if it can.
    A spread (*make_batch(32)) passes what the code returns: only its keywords are checked here,
    and the engine binds the rest once it is made."""
    positional = [p for p in info.params if p not in info.keyword_only]
    given = len(call.args) + len(call.kwargs)
    takes = _("{function} takes {params}").format(function=info.name, params=_names(list(info.params)))
    if call.spread:
        for name, _value in call.kwargs:
            if (name not in info.params and not info.star_kwargs) or name in info.params[
                : info.positional_only
            ]:
                return _("{takes}; it has no parameter {name} to pass by name").format(takes=takes, name=name)
        return ""
    if len(call.args) > len(positional) and not info.star_args:
        return _("{takes}; this call passes {n} positional argument(s)").format(takes=takes, n=len(call.args))
    bound = set(positional[: len(call.args)])
    for name, _value in call.kwargs:
        if name in bound:
            return _("{takes}; this call passes {name} twice, by position and by name").format(
                takes=takes, name=name
            )
        by_position_only = name in info.params[: info.positional_only]
        if (name not in info.params and not info.star_kwargs) or by_position_only:
            return _("{takes}; it has no parameter {name} to pass by name").format(takes=takes, name=name)
    named = {name for name, _value in call.kwargs}
    missing = [p for p in info.required if p not in bound and p not in named]
    if missing:
        return _("{takes}; this call passes {n} argument(s), without {missing}").format(
            takes=takes, n=given, missing=_names(missing)
        )
    return ""


def placeholders(text: str, info: FunctionInfo | None) -> str:
    """The parameters a call still marks "?" for the person to fill in, named; "" if none."""
    try:
        parts = specs.split_top_level(text)
    except specs.SpecError:
        return ""  # the parser says what is wrong with it
    names = []
    for position, part in enumerate(parts):
        name, _sep, value = part.partition("=") if "=" in part else ("", "", part)
        if value.strip() != specs.PLACEHOLDER:
            continue
        if name.strip():
            names.append(name.strip())
        elif info is not None and position < len(info.params):
            names.append(info.params[position])
        else:
            names.append(_("argument {number}").format(number=position + 1))
    if not names:
        return ""
    return _(
        "fill in {names}: each {mark} marks an argument to write, a tensor spec such as "
        "float32[3] or a value such as 0.01"
    ).format(names=_names(names), mark=specs.PLACEHOLDER)


def unfit(text: str, info: FunctionInfo | None, call: CallSpec | None = None) -> str:
    """Why one call of the plan cannot run on the function: a "?" to fill in, or arguments
    that do not bind; "" if neither (a line the grammar cannot read: its parser says why).
    `call`: the line already parsed."""
    if info is None:
        return ""
    problem = placeholders(text, info)
    if problem:
        return problem
    if call is None:
        try:
            call = specs.parse_call(text)
        except specs.SpecError:
            return ""
    return mismatch(call, info)


def _value(info: FunctionInfo, param: str, position: int, labels: set[str] | None = None) -> str:
    signature = info.input_signature or ()
    if position < len(signature):
        spec = specs.parse_tensor_spec(signature[position], allow_dynamic=True)
        dims = ",".join(str(DYNAMIC_SIZE if d is None else d) for d in spec.shape)
        return f"{spec.dtype}[{dims}]" + (BOUNDS if spec.dtype in INTS else "")  # labels, counts: not < 0
    default = dict(info.defaults).get(param)
    if default is not None:
        return default
    annotation = dict(info.annotations).get(param, "")
    if annotation in ANNOTATED:
        return ANNOTATED[annotation]
    if param in (int_labels(info, "") if labels is None else labels):
        return LABEL_GUESS
    if any(word in annotation for word in TENSOR_ANNOTATIONS):
        return TENSOR_GUESS
    return specs.PLACEHOLDER


def _readable(text: str) -> bool:
    """Whether the plan's grammar reads a default as written (tf.zeros(3) it does not)."""
    try:
        specs.parse_value(text)
    except specs.SpecError:
        return False
    return True


def suggested_call(info: FunctionInfo, source: str = "") -> str:
    """One call from the parameters: positional for those without a default, by name for those
    with one (a default the plan cannot read is left to Python), "?" where nothing says.
    `source`: the code that defines the function, read for how it uses labels (int_labels)."""
    defaults = dict(info.defaults)
    labels = int_labels(info, source)
    parts = []
    for position, param in enumerate(info.params):
        value = _value(info, param, position, labels)
        if param in defaults and value == defaults[param] and not _readable(value):
            continue  # Python passes it
        by_name = param in defaults or param in info.keyword_only
        parts.append(f"{param}={value}" if by_name else value)
    return ", ".join(parts) if parts else specs.NO_ARGUMENTS


def fits(lines: list[str], info: FunctionInfo) -> bool:
    """Whether every line of a plan binds to the function, a "?" counting as the argument it
    stands for (a line the grammar cannot read counts as fitting: the parser names its problem
    at Run)."""
    for line in lines:
        try:
            call = specs.parse_call(_filled(line))
        except specs.SpecError:
            continue
        if mismatch(call, info):
            return False
    return True


def _filled(line: str) -> str:
    """The line with each "?" read as a value, so that its arguments can be counted."""
    try:
        parts = specs.split_top_level(line)
    except specs.SpecError:
        return line
    filled = []
    for part in parts:
        name, sep, value = part.rpartition("=")
        if value.strip() == specs.PLACEHOLDER:
            part = f"{name}{sep}None"
        filled.append(part)
    return ",".join(filled)


def as_tensors(lines: list[str], names: set[str], info: FunctionInfo | None) -> list[str]:
    """The plan with each Python number or bool passed to one of `names` written as a tensor:
    "0.01" becomes "tf.constant(0.01)", by position (read through the function's parameters)
    or by name. What the python-scalar-arg pitfall advises, applied to the plan."""
    out = []
    for line in lines:
        try:
            parts = specs.split_top_level(line)
        except specs.SpecError:
            out.append(line)
            continue
        written = []
        for position, part in enumerate(parts):
            name, sep, value = part.partition("=") if specs.is_keyword(part) else ("", "", part)
            param = name.strip() or (info.params[position] if info and position < len(info.params) else "")
            if param in names and _is_number(value):
                leading = value[: len(value) - len(value.lstrip())]  # keeps ", " as written
                part = f"{name}{sep}{leading}{as_tensor(value, line)}"
            written.append(part)
        out.append(",".join(written))
    return out


def as_tensor(value: str, call: str) -> str:
    """A Python number of a call as the tensor that can stand in for it: tf.constant(0.01).
    An int beside float tensors becomes one of their dtype (tf.constant(2, tf.float32)):
    Python's 2 was converted to it where it met them (x * n), and an int32 tensor would not
    be; an int beside no float tensor stays an int (a count, an index)."""
    text = value.strip()
    if _is_number(text) and type(specs.parse_value(text).value) is int:  # type: ignore[union-attr]
        try:
            parsed = specs.parse_call(call)
        except specs.SpecError:
            parsed = specs.CallSpec()
        dtypes = {
            a.dtype
            for a in [*parsed.args, *(v for _k, v in parsed.kwargs)]
            if isinstance(a, (specs.TensorSpec, specs.TensorValue)) and a.dtype in specs.FLOATS
        }
        if len(dtypes) == 1:
            return f"tf.constant({text}, tf.{dtypes.pop()})"
    return f"tf.constant({text})"


def _is_number(text: str) -> bool:
    try:
        value = specs.parse_value(text)
    except specs.SpecError:
        return False
    return isinstance(value, specs.PyValue) and type(value.value) in (int, float, bool)


def covering_signature(call_texts: list[str]) -> tuple[specs.TensorSpec, ...] | None:
    """The input_signature that serves every call with one trace: the calls' tensors, one per
    position, with None where their dims differ; None when no such signature exists (keyword
    or Python arguments, or a dtype or rank that differs)."""
    columns: list[list[specs.TensorSpec]] = []
    for text in call_texts:
        try:
            call = specs.parse_call(text)
        except specs.SpecError:
            return None
        if call.kwargs or not all(isinstance(a, specs.TensorSpec) for a in call.args):
            return None
        if not columns:
            columns = [[] for _ in call.args]
        if len(call.args) != len(columns):
            return None
        for column, arg in zip(columns, call.args):
            column.append(arg)  # type: ignore[arg-type]
    if not columns:
        return None
    covering = []
    for column in columns:
        dtypes, ranks = {s.dtype for s in column}, {len(s.shape) for s in column}
        if len(dtypes) != 1 or len(ranks) != 1:
            return None
        shape = tuple(
            None if len({s.shape[i] for s in column}) > 1 else column[0].shape[i] for i in range(ranks.pop())
        )
        covering.append(specs.TensorSpec(dtypes.pop(), shape))
    return tuple(covering)
