"""What the rules ask of the user's syntax tree: scopes, names and the shapes of statements."""

from __future__ import annotations

import ast
from typing import Any


def find_def(tree: ast.Module, first_line: int | None) -> Any:
    """The def (or lambda) whose first line, or a decorator's, is `first_line`."""
    if first_line is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            lines = {node.lineno} | {d.lineno for d in getattr(node, "decorator_list", [])}
            if first_line in lines:
                return node
    return None


def module_scalars(tree: ast.Module) -> dict[str, list[int]]:
    """Module-level names bound to Python scalars, with every line that (re)assigns them."""
    lines: dict[str, list[int]] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            scalar = isinstance(value, ast.Constant) or (
                isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant)
            )
            for t in targets:
                if isinstance(t, ast.Name) and (scalar or t.id in lines):
                    lines.setdefault(t.id, []).append(stmt.lineno)
    return lines


def local_names(node: Any) -> set[str]:
    names = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    for extra in (node.args.vararg, node.args.kwarg):
        if extra is not None:
            names.add(extra.arg)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.ClassDef)) and sub is not node:
            names.add(sub.name)
    return names


def parameters(node: Any) -> set[str]:
    return {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs} - {"self"}


def root(expr: ast.AST) -> str | None:
    """The name an attribute, subscript or call chain starts from: `self` in self.a[0].b()."""
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def names_in(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def guarded_by_none_check(node: Any, target: ast.AST) -> bool:
    """`if self.v is None: self.v = tf.Variable(...)` is TF's documented create-once pattern."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.If) and any(t is target for b in sub.body for t in ast.walk(b)):
            test = sub.test
            if isinstance(test, ast.Compare) and any(
                isinstance(c, ast.Constant) and c.value is None for c in test.comparators
            ):
                return True
    return False


def is_print(func: ast.AST) -> bool:
    return isinstance(func, ast.Name) and func.id == "print"


def is_variable_init(node: Any, assign: ast.AST) -> bool:
    value = getattr(assign, "value", None)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "Variable"
        and guarded_by_none_check(node, assign)
    )
