"""Reads the pasted source with ast (never executes it): the functions defined and their parameters."""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
from collections.abc import Iterator
from dataclasses import dataclass

from .i18n import _


@dataclass(frozen=True)
class FunctionInfo:
    name: str
    params: tuple[str, ...]  # every named parameter, in order (self left out of a method)
    line: int
    decorated: bool  # carries @tf.function (or any decorator naming "function")
    first_line: int = 0  # the first decorator, or the def line
    last_line: int = 0
    positional_only: int = 0  # how many of params come before a "/"
    keyword_only: tuple[str, ...] = ()  # the params after "*" or "*args"
    defaults: tuple[tuple[str, str], ...] = ()  # param -> its default, as written
    annotations: tuple[tuple[str, str], ...] = ()  # param -> its annotation, as written
    star_args: bool = False  # takes *args
    star_kwargs: bool = False  # takes **kwargs
    input_signature: tuple[str, ...] | None = None  # the decorator's, in the plan's grammar
    wrapped: bool = False  # a decorator other than tf.function may have changed its parameters
    jit_compile: bool = False  # its tf.function decorator says jit_compile=True

    @property
    def required(self) -> tuple[str, ...]:
        """The params a call must pass."""
        given = dict(self.defaults)
        return tuple(p for p in self.params if p not in given)

    def text(self) -> str:
        """f(x, y, lr=0.01), as the page and messages name it."""
        given = dict(self.defaults)
        shown = [f"{p}={given[p]}" if p in given else p for p in self.params]
        return f"{self.name}({', '.join(shown)})"


def _is_tf_function(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, (ast.Name, ast.Attribute)) and ast.unparse(target).endswith("function")


def _input_signature(decorators: list[ast.expr]) -> tuple[str, ...] | None:
    """input_signature=[tf.TensorSpec([None, 3], tf.float32), ...] of a tf.function decorator,
    each entry as the plan writes a spec ("float32[None,3]"); None when there is none, or when
    one entry is not a TensorSpec of literal shape and dtype (then nothing is guessed)."""
    for decorator in decorators:
        if not (isinstance(decorator, ast.Call) and _is_tf_function(decorator)):
            continue
        for keyword in decorator.keywords:
            if keyword.arg == "input_signature" and isinstance(keyword.value, (ast.List, ast.Tuple)):
                entries = [_tensor_spec(e) for e in keyword.value.elts]
                return None if None in entries else tuple(e for e in entries if e is not None)
    return None


def _jit_compile(decorators: list[ast.expr]) -> bool:
    """Whether a tf.function decorator passes jit_compile=True, as written."""
    return any(
        isinstance(d, ast.Call)
        and _is_tf_function(d)
        and any(
            k.arg == "jit_compile" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in d.keywords
        )
        for d in decorators
    )


def _tensor_spec(node: ast.expr) -> str | None:
    """ "float32[None,3]" for tf.TensorSpec(shape=[None, 3], dtype=tf.float32); None otherwise."""
    if not (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("TensorSpec")):
        return None
    given = dict(zip(("shape", "dtype"), node.args)) | {k.arg: k.value for k in node.keywords if k.arg}
    shape = given.get("shape")
    if not isinstance(shape, (ast.List, ast.Tuple)):
        return None
    dims = []
    for dim in shape.elts:
        if isinstance(dim, ast.Constant) and (dim.value is None or type(dim.value) is int):
            dims.append("None" if dim.value is None else str(dim.value))
        else:
            return None
    dtype = given.get("dtype")
    name = "float32" if dtype is None else ast.unparse(dtype).rsplit(".", 1)[-1].strip("'\"")
    return f"{name}[{','.join(dims)}]"


# Levels of the syntax tree the host reads (brackets, operators, blocks). Python's own
# recursion (its parser, ast.unparse, the compiler) fails some hundreds of levels down with no
# line to show: a default 600 unary minuses deep broke the page and the API. Real code nests a
# few dozen levels.
MAX_NESTING = 150


class TooDeep(ValueError):
    """Code nested deeper than the host reads; its message names the line (0: none to name)."""

    def __init__(self, line: int = 0) -> None:
        super().__init__(_too_deep(line))
        self.line = line


def _too_deep(line: int) -> str:
    if not line:
        return _(
            "the code is nested too deeply for Python to read it; the playground reads at most {limit} levels"
        ).format(limit=MAX_NESTING)
    return _(
        "line {line}: the code is nested more than {limit} levels deep (brackets, operators or blocks)"
    ).format(line=line, limit=MAX_NESTING)


def parse(source: str) -> ast.Module:
    """ast.parse, and a tree no deeper than MAX_NESTING (TooDeep otherwise). SyntaxError and
    ValueError (a null byte) pass through as ast.parse raises them."""
    try:
        tree = ast.parse(source)
    except (RecursionError, MemoryError):
        raise TooDeep() from None
    _check_depth(tree)
    return tree


def _check_depth(tree: ast.Module) -> None:
    """TooDeep where the tree is deeper than MAX_NESTING. One level at a time, without recursion
    of our own, and no generator per node (ast.iter_child_nodes): a third of the time of a
    node-by-node walk, which took as long as the parse itself for 54 KB of short lines."""
    level: list[ast.AST] = [tree]
    above: list[ast.AST] = []
    depth = 0
    while level:
        if depth > MAX_NESTING:
            line = next((n.lineno for n in level + above if hasattr(n, "lineno")), 0)
            raise TooDeep(line)
        below: list[ast.AST] = []
        for node in level:
            for name in node._fields:
                value = getattr(node, name, None)
                if isinstance(value, ast.AST):
                    below.append(value)
                elif isinstance(value, list):
                    below.extend(v for v in value if isinstance(v, ast.AST))
        above, level = level, below
        depth += 1


@dataclass(frozen=True)
class Reading:
    """What one parse of the code tells the host: the functions it defines, or why it cannot be
    read. Plain values in no language (the sentences are worded when asked for), so that one
    reading serves every visitor and every door."""

    functions: tuple[FunctionInfo, ...] = ()
    too_deep: bool = False
    deep_line: int = 0  # where it passes MAX_NESTING; 0: Python's own parser gave up
    syntax_error: bool = False  # Python's parser refused it
    syntax_line: int | None = None  # the SyntaxError's line
    syntax_message: str = ""  # the SyntaxError's message, as Python words it
    null_byte: bool = False

    def nesting_problem(self) -> str:
        """Why the host will not read this code (nested too deep), or "" (a syntax error is the
        run's to report, at its line)."""
        return _too_deep(self.deep_line) if self.too_deep else ""

    def syntax_problem(self) -> str:
        """Why the code does not read as Python (too deep included), or ""."""
        if self.too_deep:
            return self.nesting_problem()
        if self.syntax_error:
            return _("line {line}: {message}").format(line=self.syntax_line, message=self.syntax_message)
        if self.null_byte:
            return _("the code contains a null byte; paste plain text")
        return ""


@functools.lru_cache(maxsize=32)
def read(source: str) -> Reading:
    """The code read once with Python's parser: its depth checked and its functions found in the
    same pass. Kept for the last few sources, for every caller: the page's editor, its picker
    and its plan check, a visitor's next Run, and a flood of one API request read it once."""
    with _no_collections():
        try:
            tree = parse(source)
        except TooDeep as error:
            return Reading(too_deep=True, deep_line=error.line)
        except SyntaxError as error:
            return Reading(syntax_error=True, syntax_line=error.lineno, syntax_message=error.msg)
        except ValueError:  # a null byte in the pasted text
            return Reading(null_byte=True)
        return Reading(functions=tuple(_functions(tree)))


@contextlib.contextmanager
def _no_collections() -> Iterator[None]:
    """The garbage collector held off while the code is read. A tree holds no cycles (its nodes
    are freed as soon as it is dropped, before this returns), but its 36,000 nodes for 54 KB of
    short lines count as allocations: the collector ran tens of times over them and, with a
    server's heap (400,000 objects), a full collection every few readings, which took a reading
    from 35 ms to 155 ms at p90. Process-wide, so only switched back on where it was on; a
    second thread reading meanwhile leaves it as the first found it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def nesting_problem(source: str) -> str:
    """Why the host will not read this code (nested too deep), or "" (a syntax error is the
    run's to report, at its line)."""
    return read(source).nesting_problem()


def functions(source: str) -> list[FunctionInfo]:
    """Top-level functions, plus methods of top-level classes as Class.method; none where the
    code does not read."""
    return list(read(source).functions)


def _functions(tree: ast.Module) -> list[FunctionInfo]:
    found: list[FunctionInfo] = []

    def add(node: ast.FunctionDef | ast.AsyncFunctionDef, prefix: str = "", skip_self: bool = False) -> None:
        args = node.args
        positional = args.posonlyargs + args.args
        # Python aligns the positional defaults with the last positional params.
        defaults = list(
            zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults)
        )
        defaults += [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        every = positional + args.kwonlyargs
        skip = 1 if skip_self and every else 0
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        found.append(
            FunctionInfo(
                prefix + node.name,
                tuple(a.arg for a in every[skip:]),
                node.lineno,
                any(_is_tf_function(d) for d in node.decorator_list),
                first,
                node.end_lineno or node.lineno,
                positional_only=max(len(args.posonlyargs) - skip, 0),
                keyword_only=tuple(a.arg for a in args.kwonlyargs),
                defaults=tuple((name, ast.unparse(value)) for name, value in defaults),
                annotations=tuple((a.arg, ast.unparse(a.annotation)) for a in every[skip:] if a.annotation),
                star_args=args.vararg is not None,
                star_kwargs=args.kwarg is not None,
                input_signature=_input_signature(node.decorator_list),
                wrapped=not all(_is_tf_function(d) for d in node.decorator_list),
                jit_compile=_jit_compile(node.decorator_list),
            )
        )

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    add(item, f"{node.name}.", skip_self=True)
    return found


def function_source(source: str, name: str) -> tuple[str, int]:
    """The user's function, decorators included, found by name with ast, and its first line;
    else the whole source from line 1."""
    info = next((i for i in functions(source) if i.name.split(".")[-1] == name.split(".")[-1]), None)
    if info is None:
        return source, 1
    return "\n".join(source.splitlines()[info.first_line - 1 : info.last_line]), info.first_line


def default_function(infos: list[FunctionInfo]) -> str:
    """The first @tf.function, else the first function: what a person most likely means."""
    for info in infos:
        if info.decorated:
            return info.name
    return infos[0].name if infos else ""


def syntax_error(source: str) -> str:
    return read(source).syntax_problem()
