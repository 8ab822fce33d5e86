"""The pitfall rules, one function each. A syntax rule looks at one node of a traced function's
body and returns a Warning or None; an observed rule reads the run's record of the function.
Adding a rule is one decorated function here and its case in tests (CONTRIBUTING.md)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeGuard

from ...contract import plan_fit, reasons
from ...contract.i18n import _, sentences
from ...contract.job import FunctionReport, Warning
from .signature import suggest_signature
from .syntax import (
    guarded_by_none_check,
    is_print,
    is_variable_init,
    local_names,
    names_in,
    parameters,
    root,
)

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


@dataclass(frozen=True)
class Seen:
    """One traced function as the rules see it: its def, and what the run recorded of it."""

    report: FunctionReport
    node: Any  # its def or lambda in the user's tree; None when it is not in the source
    module_values: dict[str, list[int]]  # module-level scalars and the lines assigning them
    local: frozenset[str] = frozenset()
    params: frozenset[str] = frozenset()

    @classmethod
    def of(cls, report: FunctionReport, node: Any, module_values: dict[str, list[int]]) -> Seen:
        if node is None:
            return cls(report, None, module_values)
        return cls(report, node, module_values, frozenset(local_names(node)), frozenset(parameters(node)))

    @property
    def name(self) -> str:
        return self.report.name

    @property
    def traces(self) -> int:
        return self.report.tracing_count

    @property
    def calls(self) -> int:
        return len(self.report.calls)

    @cached_property  # read by several rules at every node: computed once per function
    def call_errors(self) -> str:
        return " ".join(c.error.message for c in self.report.calls if c.error)

    @cached_property
    def ran_eagerly(self) -> bool:
        """Calls that ran without a trace ran eagerly (run_functions_eagerly): print and .numpy() work."""
        return self.calls > 0 and self.traces == 0 and not self.call_errors


SyntaxRule = Callable[[Seen, ast.AST], "Warning | None"]
ObservedRule = Callable[[Seen], Iterable[Warning]]
SYNTAX: list[SyntaxRule] = []
OBSERVED: list[ObservedRule] = []


def syntax_rule(rule: SyntaxRule) -> SyntaxRule:
    SYNTAX.append(rule)
    return rule


def observed_rule(rule: ObservedRule) -> ObservedRule:
    OBSERVED.append(rule)
    return rule


def _is_numpy_method(sub: ast.AST) -> TypeGuard[ast.Call]:
    """`x.numpy()`: a tensor's value, which a symbolic tensor does not have."""
    return (
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr == "numpy"
        and not sub.args
    )


@syntax_rule
def print_at_trace(seen: Seen, sub: ast.AST) -> Warning | None:
    if not isinstance(sub, ast.Call):
        return None
    func = sub.func
    if not is_print(func) or seen.ran_eagerly:
        return None
    printed = sum(1 for c in seen.report.calls if c.stdout.strip())
    counts = (
        _(
            "print() in {name} runs only while tracing: it printed during {printed} of "
            "{calls} call(s) and the function traced {traces} time(s). Graph executions "
            "print nothing."
        ).format(name=seen.name, printed=printed, calls=seen.calls, traces=seen.traces)
        if seen.traces
        else _(  # no call reached the body (refused, or raised before tracing): no counts to tell
            "print() in {name} runs only while tracing, and graph executions print nothing."
        ).format(name=seen.name)
    )
    return Warning(
        "print-at-trace",
        sub.lineno,
        counts,
        _("Use tf.print(...) to print on every call."),
        seen.name,
    )


@syntax_rule
def open_at_trace(seen: Seen, sub: ast.AST) -> Warning | None:
    if not isinstance(sub, ast.Call):
        return None
    func = sub.func
    if not (isinstance(func, ast.Name) and func.id == "open"):
        return None
    return Warning(
        "python-side-effect",
        sub.lineno,
        _("open() in {name} does Python I/O, which happens only while tracing, not on each call.").format(
            name=seen.name
        ),
        _("Read files outside the function and pass tensors in, or use tf.io ops."),
        seen.name,
    )


@syntax_rule
def mutated_python_state(seen: Seen, sub: ast.AST) -> Warning | None:
    if not isinstance(sub, ast.Call):
        return None
    func = sub.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr in MUTATORS
        and root(func.value) not in seen.local | {"tf", "np", "numpy"}
    ):
        return None
    target = ast.unparse(func.value)
    return Warning(
        "python-side-effect",
        sub.lineno,
        _(
            "{call}(...) in {name} mutates Python state, which happens only while "
            "tracing ({traces} time(s)), not on each of the {calls} call(s)."
        ).format(call=f"{target}.{func.attr}", name=seen.name, traces=seen.traces, calls=seen.calls),
        _("Return the value instead, or keep state in a tf.Variable or tf.TensorArray."),
        seen.name,
    )


@syntax_rule
def variable_in_function(seen: Seen, sub: ast.AST) -> Warning | None:
    if not isinstance(sub, ast.Call):
        return None
    func = sub.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "Variable"
        and root(func) == "tf"
        and not guarded_by_none_check(seen.node, sub)
    ):
        return None
    raised = "singleton tf.Variables" in seen.call_errors
    return Warning(
        "variable-in-function",
        sub.lineno,
        sentences(
            _("tf.Variable(...) is created inside {name}.").format(name=seen.name),
            _("This run raised: tf.function only supports variables created on the first call.")
            if raised
            else _(
                "A new trace would create another variable; tf.function allows "
                "variables only on the first call."
            ),
        ),
        _("Create the variable once outside the function, or in a tf.Module's __init__ and use it via self."),
        seen.name,
    )


@syntax_rule
def numpy_method(seen: Seen, sub: ast.AST) -> Warning | None:
    if seen.ran_eagerly or not _is_numpy_method(sub):
        return None
    return Warning(
        "numpy-in-graph",
        sub.lineno,
        _(
            ".numpy() in {name}: inside tf.function tensors are symbolic and have no "
            "value yet (AttributeError: 'SymbolicTensor' object has no attribute "
            "'numpy')."
        ).format(name=seen.name),
        _("Use TF ops on the tensor, or tf.print to see it."),
        seen.name,
    )


@syntax_rule
def numpy_on_tensor(seen: Seen, sub: ast.AST) -> Warning | None:
    if (
        seen.ran_eagerly
        or not isinstance(sub, ast.Call)
        or _is_numpy_method(sub)
        or root(sub.func) not in ("np", "numpy")
        or not any(names_in(a) & (seen.local | seen.params) for a in sub.args)
    ):
        return None
    func = sub.func
    return Warning(
        "numpy-in-graph",
        sub.lineno,
        _(
            "{call}(...) in {name} runs NumPy at trace time on a symbolic tensor; it "
            "fails or freezes one value into the graph."
        ).format(call=ast.unparse(func), name=seen.name),
        _("Use the TF equivalent (tf.experimental.numpy or tf.math)."),
        seen.name,
    )


@syntax_rule
def len_of_argument(seen: Seen, sub: ast.AST) -> Warning | None:
    if not (
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Name)
        and sub.func.id == "len"
        and sub.args
        and names_in(sub.args[0]) & seen.params
    ):
        return None
    return Warning(
        "python-control-flow-on-tensor-shape",
        sub.lineno,
        _(
            "{call} in {name} is a Python int fixed at trace time, and fails for a dynamic (None) dimension."
        ).format(call=f"len({ast.unparse(sub.args[0])})", name=seen.name),
        _("Use tf.shape(x)[0] (or tf.size) so the value is computed in the graph."),
        seen.name,
    )


UNROLLED_AT_LEAST = 8  # iterations: fewer copies are often what the author meant


def python_iterations(loop: ast.For) -> int | None:
    """How many times a Python `for` runs, where the code says it: range() of int literals,
    or a list or tuple literal. None: not known without running it (or a tensor's loop)."""
    it = loop.iter
    if isinstance(it, (ast.List, ast.Tuple)):
        return len(it.elts)
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and it.args:
        try:
            values = [ast.literal_eval(a) for a in it.args]  # -2 is an operator on a literal
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if all(type(v) is int for v in values) and len(values) <= 3 and (len(values) < 3 or values[2] != 0):
            return len(range(*values))
    return None


@syntax_rule
def python_loop_unrolled(seen: Seen, sub: ast.AST) -> Warning | None:
    """A Python loop inside a traced function runs while tracing: each pass adds its ops to the
    graph again. Named with the ops its body made in the last trace (the graph's op lines)."""
    graph = seen.report.graph
    if not isinstance(sub, ast.For) or graph is None or seen.ran_eagerly:
        return None
    times = python_iterations(sub)
    first, last = sub.body[0].lineno, sub.end_lineno or sub.body[-1].lineno
    ops = sum(n for line, n in graph.ops_by_line.items() if first <= int(line) <= last)
    if times is None or times < UNROLLED_AT_LEAST or ops < times:
        return None
    return Warning(
        "python-loop-unrolled",
        sub.lineno,
        _(
            "The Python for at line {line} runs {times} times while {name} traces: it unrolled "
            "into {ops} ops of the graph, a copy of its body per pass."
        ).format(line=sub.lineno, times=times, name=seen.name, ops=ops),
        _("Loop over tf.range(...) instead: AutoGraph makes one tf.while_loop, a few ops at any count."),
        seen.name,
    )


@syntax_rule
def assigned_python_state(seen: Seen, sub: ast.AST) -> Warning | None:
    if not isinstance(sub, (ast.Assign, ast.AugAssign)):
        return None
    targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
    for t in targets:
        if (
            isinstance(t, (ast.Attribute, ast.Subscript))
            and root(t) not in seen.local - seen.params
            and not is_variable_init(seen.node, sub)
        ):
            return Warning(
                "python-side-effect",
                sub.lineno,
                _(
                    "assigning {target} in {name} changes Python state only while tracing "
                    "({traces} time(s)), not on each call."
                ).format(target=ast.unparse(t), name=seen.name, traces=seen.traces),
                _("Return the value, or use a tf.Variable and .assign()."),
                seen.name,
            )
    return None


@syntax_rule
def if_on_static_shape(seen: Seen, sub: ast.AST) -> Warning | None:
    if not isinstance(sub, ast.If) or not any(
        isinstance(n, ast.Attribute) and n.attr == "shape" and root(n) in seen.params
        for n in ast.walk(sub.test)
    ):
        return None
    return Warning(
        "python-control-flow-on-tensor-shape",
        sub.lineno,
        _(
            "{test} in {name} tests a static shape: it is decided once per trace, not "
            "staged as tf.cond, and a None dimension makes it fail or retrace."
        ).format(test=f"`if {ast.unparse(sub.test)}`", name=seen.name),
        _("Branch on tf.shape(x) (a tensor) so AutoGraph stages tf.cond."),
        seen.name,
    )


@syntax_rule
def captured_global(seen: Seen, sub: ast.AST) -> Warning | None:
    if not (
        isinstance(sub, ast.Name)
        and isinstance(sub.ctx, ast.Load)
        and sub.id in seen.module_values
        and sub.id not in seen.local
    ):
        return None
    assigned = seen.module_values[sub.id]
    if len(assigned) <= 1 and sub.id.isupper():  # a constant by name, bound once
        return None
    later = (
        _("It is reassigned at line {line}, but the graph keeps the value it had when traced.").format(
            line=assigned[-1]
        )
        if len(assigned) > 1
        else ""
    )
    return Warning(
        "captured-global",
        sub.lineno,
        sentences(
            _(
                "{name} reads the module-level Python value {value}, which is frozen into "
                "the graph at trace time."
            ).format(name=seen.name, value=repr(sub.id)),
            later,
        ),
        _("Pass {value} as a tensor argument (tf.constant) or keep it in a tf.Variable.").format(
            value=sub.id
        ),
        seen.name,
    )


def _line(seen: Seen) -> int | None:
    return getattr(seen.node, "lineno", seen.report.line)


@observed_rule
def python_scalar_arg(seen: Seen) -> list[Warning]:
    """One warning naming every argument whose Python value changed (a rule's warnings are one
    per function and line), with the exact edit for each: its first value as a tensor."""
    changes = _python_value_changes(seen)
    if not changes:
        return []
    first_call = seen.report.calls[0].args if seen.report.calls else ""
    edits = ", ".join(
        _("{tensor} for {arg}").format(
            tensor=plan_fit.as_tensor(steps[0].split(" -> ")[0], first_call), arg=arg
        )
        for arg, steps in changes.items()
    )
    return [
        Warning(
            "python-scalar-arg",
            _line(seen),
            _(
                "{name}: the Python value of {args} changed between calls ({changes}). A Python "
                "value is part of what a trace is for, so each new value traced a new graph."
            ).format(
                name=seen.name,
                args=", ".join(changes),
                changes="; ".join(f"{arg} {', '.join(steps[:3])}" for arg, steps in changes.items()),
            ),
            _(
                "Pass them as tensors, so one graph serves every value: {edits}, in your code and "
                "in the call plan (or a tf.Variable that you assign). An input_signature with a "
                "TensorSpec for each also turns Python numbers into tensors; reduce_retracing does "
                "not help, since it relaxes shapes, not values."
            ).format(edits=edits),
            seen.name,
        )
    ]


def _python_value_changes(seen: Seen) -> dict[str, list[str]]:
    """Argument -> its Python value changes ("0.01 -> 0.005"), read from the calls' reasons."""
    changes: dict[str, list[str]] = {}
    for call in seen.report.calls:
        for arg, change in reasons.python_values(call.reason):
            changes.setdefault(arg, []).append(change)
    return changes


def _retrace_causes(seen: Seen) -> set[str]:
    """What made the function's retraces (reasons.causes of each retracing call)."""
    return {cause for call in seen.report.calls if call.retraced for cause in reasons.causes(call.reason)}


@observed_rule
def excessive_retracing(seen: Seen) -> list[Warning]:
    calls, traces = seen.calls, seen.traces
    retraces = sum(1 for c in seen.report.calls if c.retraced)
    if not (traces > EXCESSIVE_TRACES or (calls >= 3 and retraces > calls / 2 and traces > 2)):
        return []
    causes = _retrace_causes(seen)
    fixes = []
    if "shape" in causes:
        suggestion = suggest_signature([c.args for c in seen.report.calls])
        hint = (
            f"input_signature={suggestion}"
            if suggestion
            else _("an input_signature with None for the dimensions that vary")
        )
        fixes.append(
            _(
                "For the shapes: use {hint}, or reduce_retracing=True (formerly "
                "experimental_relax_shapes) so TF generalises the shapes after a retrace."
            ).format(hint=hint)
        )
    if "value" in causes:
        fixes.append(_("For the Python values: pass them as tensors (see python-scalar-arg)."))
    if "other" in causes or not fixes:
        fixes.append(
            _(
                "No argument changed: create what the function uses (models, optimizers, "
                "variables) once, outside it, and use the same objects on every call."
            )
        )
    return [
        Warning(
            "excessive-retracing",
            _line(seen),
            _("{name} traced {traces} time(s) in {calls} call(s); each trace rebuilds the graph.").format(
                name=seen.name, traces=traces, calls=calls
            ),
            sentences(*fixes),
            seen.name,
        )
    ]
