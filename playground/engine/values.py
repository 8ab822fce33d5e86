"""Turns parsed call specs into real arguments, and results into short readable summaries."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

from ..contract import seeded, specs
from ..contract.config import settings
from ..contract.errors import PlaygroundError
from ..contract.i18n import _
from ..contract.specs import Arg, CallSpec, FromCode, TensorSpec, TensorValue

_MAX_SUMMARY = 300


class Refused(Exception):
    """A planned call whose arguments cannot be made: its message says why, as the call's refusal."""


class MakerRaised(Exception):
    """The user's own function, named in the plan (make_batch(32)), raised: its exception is the
    __cause__, to be reported at the user's line."""


def make_tensor(spec: TensorSpec, seed: int) -> tf.Tensor:
    """The spec's tensor: deterministic random values (seeded.make_tensor, which an exported
    notebook embeds), or TensorFlow's own tf.ones/zeros/fill/range/eye (reports/notebook.py
    writes the same expressions)."""
    dims = []
    for d in spec.shape:
        if d is None:  # a call's spec has none: parse_tensor_spec allows them in signatures only
            raise TypeError(f"{spec}: a call's tensor needs a size in every dim")
        dims.append(int(d))
    shape, dtype, made = tuple(dims), spec.dtype, spec.values
    if made is None:
        return seeded.make_tensor(dtype, shape, seed)
    if made.random:
        seed = seed if made.seed is None else made.seed
        return seeded.make_tensor(dtype, shape, seed, **{made.kind: made.numbers})
    if made.kind == "ones":
        return tf.ones(shape, dtype)
    if made.kind == "zeros":
        return tf.zeros(shape, dtype)
    if made.kind == "fill":
        return tf.fill(shape, tf.constant(made.numbers[0], dtype))
    if made.kind == "range":
        return tf.range(*made.numbers, dtype=dtype)
    rows, columns = made.numbers
    return tf.eye(rows, columns, dtype=dtype)


def make_value(arg: Arg, seed: int, scope: dict | None = None) -> Any:
    if isinstance(arg, TensorSpec):
        return make_tensor(arg, seed)
    if isinstance(arg, TensorValue):  # a literal, read by ast.literal_eval: nothing runs here
        return (tf.Variable if arg.maker == "Variable" else tf.constant)(arg.value, dtype=arg.dtype)
    if isinstance(arg, FromCode):
        return from_code(arg, scope)
    return arg.value


def make_args(
    call: CallSpec, call_index: int, scope: dict | None = None, function: Callable | None = None
) -> tuple[list[Any], dict[str, Any]]:
    """The call's arguments; `scope`: the user's module namespace, where make_batch(32) is
    looked up; `function`: the function a spread's items must bind to. Raises Refused, or
    MakerRaised when the user's function raised."""
    seed = 1000 * call_index
    args = [make_value(a, seed + i, scope) for i, a in enumerate(call.args)]
    kwargs = {k: make_value(v, seed + 100 + i, scope) for i, (k, v) in enumerate(call.kwargs)}
    spread = call.args[0] if call.spread else None
    if isinstance(spread, FromCode):
        made = args[0]
        if not isinstance(made, (tuple, list)):
            raise Refused(
                _("{call} passes the items of a tuple or list; {name} returned {kind}").format(
                    call=spread, name=spread.name, kind=_type_name(made)
                )
            )
        args = list(made)
        failed = None if function is None else bind_error(function, args, kwargs)
        if failed is not None:
            signature, error = failed
            raise Refused(
                _("{call} returned {n} item(s), which do not fit {signature}: {error}").format(
                    call=spread, n=len(args), signature=signature, error=error
                )
            )
    return args, kwargs


def bind_error(function: Callable, args: Any, kwargs: dict) -> tuple[str, TypeError] | None:
    """Why these arguments do not bind to the function's parameters, as Python says it, with
    the function's signature as a person reads it ("f(x, n)"); None when they bind, or when
    the function has no signature to read. The plan's calls, and a spread's items once made."""
    try:
        parameters = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    try:
        parameters.bind(*args, **kwargs)
    except TypeError as error:
        names = ", ".join(parameters.parameters) or _("no arguments")
        return f"{getattr(function, '__name__', 'function')}({names})", error
    return None


def from_code(arg: FromCode, scope: dict | None) -> Any:
    """Calls the user's function named in the plan, in the sandbox (this is the worker), and
    counts the elements of what it returns against the cap before the call is made."""
    maker = (scope or {}).get(arg.name)
    if not callable(maker):
        raise Refused(
            _("{call} calls {name}, but your code defines no function {name}").format(call=arg, name=arg.name)
            if maker is None
            else _("{call} calls {name}, but {name} in your code is {kind}, not a function").format(
                call=arg, name=arg.name, kind=_type_name(maker)
            )
        )
    try:
        made = maker(*arg.args, **dict(arg.kwargs))
    except (MemoryError, tf.errors.ResourceExhaustedError):
        raise
    except Exception as e:  # the user's function raised: reported at the user's line
        raise MakerRaised(str(arg)) from e
    try:
        specs.check_size(
            _elements(made), _("what {call} returned").format(call=arg), settings().max_tensor_elements
        )
    except PlaygroundError as e:
        raise Refused(str(e)) from None
    return made


def _elements(value: Any) -> int:
    """The elements of the tensors and arrays in a structure (a ragged or sparse tensor's parts)."""
    try:
        leaves = tf.nest.flatten(value, expand_composites=True)
    except Exception:  # noqa: BLE001 - a structure tf.nest cannot read: the value itself
        leaves = [value]
    total = 0
    for leaf in leaves:
        if isinstance(leaf, (tf.Tensor, tf.Variable)) and leaf.shape.rank is not None:
            total += int(np.prod([d or 0 for d in leaf.shape.as_list()], dtype=object))
        elif isinstance(leaf, np.ndarray):
            total += int(leaf.size)
    return total


def summarize(value: Any) -> str:
    """ "float32[3] [2. 4. 6.]": dtype, shape and the first values, on one line, truncated.

    Never raises and never calls the user's own __repr__ (it could print, raise or hang): a
    formatting failure must not lose the run.
    """
    try:
        out = " ".join(_summary(value, depth=0).split())  # one line, however numpy wrapped it
    except Exception as e:  # noqa: BLE001
        out = f"<{_type_name(value)}: not printable ({type(e).__name__})>"
    return out if len(out) <= _MAX_SUMMARY else out[: _MAX_SUMMARY - 3] + "..."


def label_of(value: Any) -> str:
    """A call's argument as the call plan writes it: float32[2,3] for a tensor, else its summary."""
    if isinstance(value, (tf.Tensor, tf.Variable)):
        dims = ",".join("None" if d is None else str(d) for d in value.shape)
        return f"{value.dtype.name}[{dims}]"
    element = getattr(value, "element_spec", None)
    if element is not None and not isinstance(value, tf.data.Dataset):  # a tf.data iterator
        try:
            return "iterator of " + ", ".join(_spec_label(s) for s in tf.nest.flatten(element))
        except Exception:  # noqa: BLE001 - an odd element_spec: its summary below
            pass
    if isinstance(value, np.ndarray):  # traced as a tensor: its values never matter here
        return f"ndarray {value.dtype}[{','.join(str(d) for d in value.shape)}]"
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, (tf.Tensor, tf.Variable)) for v in value)
    ):
        inner = ", ".join(label_of(v) for v in value[:_MAX_ITEMS])
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    text = summarize(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _spec_label(spec: Any) -> str:
    if isinstance(spec, tf.TensorSpec):
        if spec.shape.rank is None:
            return f"{spec.dtype.name}[...]"
        return f"{spec.dtype.name}[{','.join('None' if d is None else str(d) for d in spec.shape.as_list())}]"
    return type(spec).__name__


_SCALARS = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis))
_MAX_ITEMS = 20
_MAX_DEPTH = 4


def _summary(value: Any, depth: int) -> str:
    if depth > _MAX_DEPTH:
        return "..."
    if isinstance(value, (tf.Tensor, tf.Variable)):
        return _tensor(value)
    if isinstance(value, tf.RaggedTensor):
        return f"RaggedTensor {value.dtype.name}{_dims(value.shape)} {_values(value.to_list())}"
    if isinstance(value, tf.SparseTensor):
        return f"SparseTensor {value.dtype.name}{_dims(value.shape)} {int(value.values.shape[0])} value(s)"
    if isinstance(value, _SCALARS) or isinstance(value, np.generic):
        return _values(value)
    if isinstance(value, np.ndarray):
        return f"ndarray {value.dtype}{list(value.shape)} {_values(value)}"
    if _is_namedtuple(value):
        fields = ", ".join(
            f"{k}={_summary(v, depth + 1)}" for k, v in list(zip(value._fields, value))[:_MAX_ITEMS]
        )
        return f"{type(value).__name__}({fields})"
    if type(value) in (list, tuple):
        inner = ", ".join(_summary(v, depth + 1) for v in value[:_MAX_ITEMS])
        inner += ", ..." if len(value) > _MAX_ITEMS else ""
        return f"({inner}{',' if len(value) == 1 else ''})" if type(value) is tuple else f"[{inner}]"
    if type(value) is dict:
        items = list(value.items())[:_MAX_ITEMS]
        inner = ", ".join(f"{_summary(k, depth + 1)}: {_summary(v, depth + 1)}" for k, v in items)
        return "{" + inner + (", ..." if len(value) > _MAX_ITEMS else "") + "}"
    return f"<{_type_name(value)} object>"


def _tensor(value: tf.Tensor) -> str:
    try:
        array = value.numpy()
    except Exception:  # noqa: BLE001 - a symbolic tensor leaked out of a graph
        return f"<symbolic tensor {value.dtype.name}{_dims(value.shape)}>"
    return f"{value.dtype.name}{_dims(value.shape)} {_values(array)}"


def _values(array: Any) -> str:
    array = np.asarray(array) if not isinstance(array, (list, str, bytes)) else array
    if isinstance(array, np.ndarray) and array.ndim:
        return np.array2string(
            array,
            threshold=20,
            edgeitems=3,
            max_line_width=120,
            formatter=_BYTES_FORMATTER,  # type: ignore[arg-type]  # numpy's _FormatDict is private to its stubs
        )
    item = array.item() if isinstance(array, np.ndarray) else array
    return repr(item)[:_MAX_SUMMARY]


# Strings come back from TF as bytes objects; numpy's default would try str() on huge ones.
_BYTES_FORMATTER = {"object": lambda v: repr(v)[:40]}


def _dims(shape: Any) -> str:
    try:
        dims = shape.as_list() if shape.rank is not None else None
    except (AttributeError, ValueError):
        return "[?]"
    if dims is None:
        return "[<unknown rank>]"
    return "[" + ",".join("None" if d is None else str(d) for d in dims) + "]"


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _type_name(value: Any) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "")
    return (
        kind.__qualname__
        if module in ("builtins", "playground_user", "__main__")
        else f"{module}.{kind.__qualname__}"
    )
