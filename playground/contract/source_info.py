"""Reads the pasted source with ast (never executes it): the functions defined and their parameters."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .i18n import _


@dataclass(frozen=True)
class FunctionInfo:
    name: str
    params: tuple[str, ...]
    line: int
    decorated: bool  # carries @tf.function (or any decorator naming "function")
    first_line: int = 0  # the first decorator, or the def line
    last_line: int = 0


def _is_tf_function(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, (ast.Name, ast.Attribute)) and ast.unparse(target).endswith("function")


def functions(source: str) -> list[FunctionInfo]:
    """Top-level functions, plus methods of top-level classes as Class.method."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: a null byte in the pasted text
        return []
    found: list[FunctionInfo] = []

    def add(node: ast.FunctionDef | ast.AsyncFunctionDef, prefix: str = "", skip_self: bool = False) -> None:
        args = node.args
        names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        if skip_self and names:
            names = names[1:]
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        found.append(
            FunctionInfo(
                prefix + node.name,
                tuple(names),
                node.lineno,
                any(_is_tf_function(d) for d in node.decorator_list),
                first,
                node.end_lineno or node.lineno,
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
    try:
        ast.parse(source)
    except SyntaxError as error:
        return _("line {line}: {message}").format(line=error.lineno, message=error.msg)
    except ValueError:
        return _("the code contains a null byte; paste plain text")
    return ""
