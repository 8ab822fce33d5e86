"""Detects tf.function pitfalls in the user's code: ast analysis of each traced function,
confirmed by what the run observed (trace counts, per-call prints, retrace reasons, errors).

Pure Python (no TensorFlow), so it can be tested against recorded reports.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import Any

from ..contract import specs
from ..contract.i18n import _, sentences
from ..contract.job import FunctionReport, Warning

MUTATORS = {
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "setdefault",
    "add",
    "discard",
    "popitem",
    "update",
    "write",
    "writelines",
}
EXCESSIVE_TRACES = 3


def detect(source: str, reports: list[FunctionReport], functions: list[Callable]) -> list[Warning]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # the run has already reported why it cannot be read
        return []
    module_values = _module_scalars(tree)
    found: list[Warning] = []
    for report, function in zip(reports, functions):
        node = _find_def(tree, getattr(getattr(function, "__code__", None), "co_firstlineno", None))
        if node is not None:
            found += _static(node, report, module_values)
        found += _observed(report, node)
    seen, unique = set(), []
    for w in found:
        if (w.code, w.line, w.function) not in seen:
            seen.add((w.code, w.line, w.function))
            unique.append(w)
    return unique


def _find_def(tree: ast.Module, first_line: int | None) -> ast.AST | None:
    if first_line is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            lines = {node.lineno} | {d.lineno for d in getattr(node, "decorator_list", [])}
            if first_line in lines:
                return node
    return None


def _module_scalars(tree: ast.Module) -> dict[str, list[int]]:
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


def _locals(node: Any) -> set[str]:
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


def _params(node: Any) -> set[str]:
    return {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs} - {"self"}


def _root(expr: ast.AST) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _names_in(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _guarded_by_none_check(node: Any, target: ast.AST) -> bool:
    """`if self.v is None: self.v = tf.Variable(...)` is TF's documented create-once pattern."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.If) and any(t is target for b in sub.body for t in ast.walk(b)):
            test = sub.test
            if isinstance(test, ast.Compare) and any(
                isinstance(c, ast.Constant) and c.value is None for c in test.comparators
            ):
                return True
    return False


def _static(node: Any, report: FunctionReport, module_values: dict[str, list[int]]) -> list[Warning]:
    name, out = report.name, []
    local, params = _locals(node), _params(node)
    traces, calls = report.tracing_count, len(report.calls)
    call_errors = " ".join(c.error.message for c in report.calls if c.error)
    # Calls that ran without a trace ran eagerly (run_functions_eagerly): print and .numpy() work.
    ran_eagerly = calls > 0 and traces == 0 and not call_errors
    body = node.body if isinstance(node.body, list) else [node.body]
    for sub in (s for stmt in body for s in ast.walk(stmt)):
        if isinstance(sub, ast.Call):
            func = sub.func
            if ran_eagerly and (_is_print(func) or _is_numpy(func, sub)):
                continue
            if isinstance(func, ast.Name) and func.id == "print":
                printed = sum(1 for c in report.calls if c.stdout.strip())
                out.append(
                    Warning(
                        "print-at-trace",
                        sub.lineno,
                        _(
                            "print() in {name} runs only while tracing: it printed during {printed} of "
                            "{calls} call(s) and the function traced {traces} time(s). Graph executions "
                            "print nothing."
                        ).format(name=name, printed=printed, calls=calls, traces=traces),
                        _("Use tf.print(...) to print on every call."),
                        name,
                    )
                )
            elif isinstance(func, ast.Name) and func.id == "open":
                out.append(
                    Warning(
                        "python-side-effect",
                        sub.lineno,
                        _(
                            "open() in {name} does Python I/O, which happens only while tracing, not on "
                            "each call."
                        ).format(name=name),
                        _("Read files outside the function and pass tensors in, or use tf.io ops."),
                        name,
                    )
                )
            elif (
                isinstance(func, ast.Attribute)
                and func.attr in MUTATORS
                and _root(func.value) not in local | {"tf", "np", "numpy"}
            ):
                target = ast.unparse(func.value)
                out.append(
                    Warning(
                        "python-side-effect",
                        sub.lineno,
                        _(
                            "{call}(...) in {name} mutates Python state, which happens only while "
                            "tracing ({traces} time(s)), not on each of the {calls} call(s)."
                        ).format(call=f"{target}.{func.attr}", name=name, traces=traces, calls=calls),
                        _("Return the value instead, or keep state in a tf.Variable or tf.TensorArray."),
                        name,
                    )
                )
            elif (
                isinstance(func, ast.Attribute)
                and func.attr == "Variable"
                and _root(func) == "tf"
                and not _guarded_by_none_check(node, sub)
            ):
                raised = "singleton tf.Variables" in call_errors
                out.append(
                    Warning(
                        "variable-in-function",
                        sub.lineno,
                        sentences(
                            _("tf.Variable(...) is created inside {name}.").format(name=name),
                            _(
                                "This run raised: tf.function only supports variables created on the "
                                "first call."
                            )
                            if raised
                            else _(
                                "A new trace would create another variable; tf.function allows "
                                "variables only on the first call."
                            ),
                        ),
                        _(
                            "Create the variable once outside the function, or in a tf.Module's "
                            "__init__ and use it via self."
                        ),
                        name,
                    )
                )
            elif isinstance(func, ast.Attribute) and func.attr == "numpy" and not sub.args:
                out.append(
                    Warning(
                        "numpy-in-graph",
                        sub.lineno,
                        _(
                            ".numpy() in {name}: inside tf.function tensors are symbolic and have no "
                            "value yet (AttributeError: 'SymbolicTensor' object has no attribute "
                            "'numpy')."
                        ).format(name=name),
                        _("Use TF ops on the tensor, or tf.print to see it."),
                        name,
                    )
                )
            elif (
                isinstance(func, ast.Attribute)
                and _root(func) in ("np", "numpy")
                and any(_names_in(a) & (local | params) for a in sub.args)
            ):
                out.append(
                    Warning(
                        "numpy-in-graph",
                        sub.lineno,
                        _(
                            "{call}(...) in {name} runs NumPy at trace time on a symbolic tensor; it "
                            "fails or freezes one value into the graph."
                        ).format(call=ast.unparse(func), name=name),
                        _("Use the TF equivalent (tf.experimental.numpy or tf.math)."),
                        name,
                    )
                )
            elif (
                isinstance(func, ast.Name)
                and func.id == "len"
                and sub.args
                and _names_in(sub.args[0]) & params
            ):
                out.append(
                    Warning(
                        "python-control-flow-on-tensor-shape",
                        sub.lineno,
                        _(
                            "{call} in {name} is a Python int fixed at trace time, and fails for a "
                            "dynamic (None) dimension."
                        ).format(call=f"len({ast.unparse(sub.args[0])})", name=name),
                        _("Use tf.shape(x)[0] (or tf.size) so the value is computed in the graph."),
                        name,
                    )
                )
        elif isinstance(sub, (ast.Assign, ast.AugAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            for t in targets:
                if (
                    isinstance(t, (ast.Attribute, ast.Subscript))
                    and _root(t) not in local - params
                    and not _is_variable_init(node, sub)
                ):
                    out.append(
                        Warning(
                            "python-side-effect",
                            sub.lineno,
                            _(
                                "assigning {target} in {name} changes Python state only while tracing "
                                "({traces} time(s)), not on each call."
                            ).format(target=ast.unparse(t), name=name, traces=traces),
                            _("Return the value, or use a tf.Variable and .assign()."),
                            name,
                        )
                    )
        elif isinstance(sub, ast.If) and any(
            isinstance(n, ast.Attribute) and n.attr == "shape" and _root(n) in params
            for n in ast.walk(sub.test)
        ):
            out.append(
                Warning(
                    "python-control-flow-on-tensor-shape",
                    sub.lineno,
                    _(
                        "{test} in {name} tests a static shape: it is decided once per trace, not "
                        "staged as tf.cond, and a None dimension makes it fail or retrace."
                    ).format(test=f"`if {ast.unparse(sub.test)}`", name=name),
                    _("Branch on tf.shape(x) (a tensor) so AutoGraph stages tf.cond."),
                    name,
                )
            )
        elif (
            isinstance(sub, ast.Name)
            and isinstance(sub.ctx, ast.Load)
            and sub.id in module_values
            and sub.id not in local
        ):
            assigned = module_values[sub.id]
            if len(assigned) > 1 or not sub.id.isupper():
                later = (
                    _(
                        "It is reassigned at line {line}, but the graph keeps the value it had when traced."
                    ).format(line=assigned[-1])
                    if len(assigned) > 1
                    else ""
                )
                out.append(
                    Warning(
                        "captured-global",
                        sub.lineno,
                        sentences(
                            _(
                                "{name} reads the module-level Python value {value}, which is frozen into "
                                "the graph at trace time."
                            ).format(name=name, value=repr(sub.id)),
                            later,
                        ),
                        _(
                            "Pass {value} as a tensor argument (tf.constant) or keep it in a tf.Variable."
                        ).format(value=sub.id),
                        name,
                    )
                )
    return out


def _is_print(func: ast.AST) -> bool:
    return isinstance(func, ast.Name) and func.id == "print"


def _is_numpy(func: ast.AST, call: ast.Call) -> bool:
    return isinstance(func, ast.Attribute) and (
        (func.attr == "numpy" and not call.args) or _root(func) in ("np", "numpy")
    )


def _is_variable_init(node: Any, assign: ast.AST) -> bool:
    value = getattr(assign, "value", None)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "Variable"
        and _guarded_by_none_check(node, assign)
    )


def _observed(report: FunctionReport, node: Any) -> list[Warning]:
    name, out = report.name, []
    line = getattr(node, "lineno", report.line)
    python_changes: dict[str, list[str]] = {}
    for call in report.calls:
        for part in (call.reason or "").split("; "):
            arg, _sep, change = part.partition(": ")
            if change.startswith("Python value"):
                python_changes.setdefault(arg, []).append(change.removeprefix("Python value "))
    for arg, changes in python_changes.items():
        out.append(
            Warning(
                "python-scalar-arg",
                line,
                _(
                    "{name}: the Python value of {arg} changed between calls ({changes}), and every "
                    "new value traced a new graph."
                ).format(name=name, arg=repr(arg), changes="; ".join(changes[:4])),
                _(
                    "Pass {arg} as a tensor (tf.constant) so one graph serves all values, or keep it fixed."
                ).format(arg=arg),
                name,
            )
        )
    calls, traces = len(report.calls), report.tracing_count
    retraces = sum(1 for c in report.calls if c.retraced)
    if traces > EXCESSIVE_TRACES or (calls >= 3 and retraces > calls / 2 and traces > 2):
        suggestion = suggest_signature([c.args for c in report.calls])
        hint = (
            f"input_signature={suggestion}"
            if suggestion
            else _("an input_signature with None for the dimensions that vary")
        )
        out.append(
            Warning(
                "excessive-retracing",
                line,
                _("{name} traced {traces} time(s) in {calls} call(s); each trace rebuilds the graph.").format(
                    name=name, traces=traces, calls=calls
                ),
                _(
                    "Use {hint}, or reduce_retracing=True (formerly experimental_relax_shapes) so TF "
                    "generalises the shapes after a retrace."
                ).format(hint=hint),
                name,
            )
        )

    return out


def suggest_signature(call_texts: Iterable[str]) -> str | None:
    """The input_signature that covers every call: same dtype and rank, None where dims differ."""
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
    entries = []
    for column in columns:
        dtypes, ranks = {s.dtype for s in column}, {len(s.shape) for s in column}
        if len(dtypes) != 1 or len(ranks) != 1:
            return None
        dims = [
            "None" if len({s.shape[i] for s in column}) > 1 else str(column[0].shape[i])
            for i in range(ranks.pop())
        ]
        entries.append(f"tf.TensorSpec([{', '.join(dims)}], tf.{dtypes.pop()})")
    return "[" + ", ".join(entries) + "]"
