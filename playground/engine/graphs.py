"""Inspects traced graphs: true op counts (nested bodies included), Grappler's optimised graph,
a graphviz drawing, and XLA's HLO through a separate tf.function so user counts stay true."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2, meta_graph_pb2, rewriter_config_pb2
from tensorflow.python.framework import kernels
from tensorflow.python.grappler import cluster as gcluster
from tensorflow.python.grappler import tf_optimizer
from tensorflow.python.util import deprecation

from ..contract.i18n import N_, _, sentences
from ..contract.job import GraphInfo, GraphOp, PassEffect, XlaVerdict

MAX_DOT_NODES = 60
MAX_LISTED_OPS = 2000  # ops listed one by one in the report; the per-line counts cover all
NOTHING_FETCHED = N_(
    "The function returns nothing and has no side-effecting op, so all {n} ops "
    "are dead code: the runtime prunes the whole graph and each call runs none of "
    "them. A 'graph is faster' timing of such a function measures doing nothing."
)
LOWERED = {"StatelessIf", "If", "StatelessWhile", "While", "StatefulPartitionedCall", "PartitionedCall"}
CONTROL_FLOW_V1 = {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"}


def op_types(graph_def: Any) -> Counter:
    """Counts every node, including those inside function bodies (tf.cond, tf.while_loop)."""
    counts = Counter(node.op for node in graph_def.node)
    for function in graph_def.library.function:
        counts.update(node.op for node in function.node_def)
    return counts


def optimize(
    concrete: Any, rewrite: Callable[[Any], None] | None = None, meta: Any = None, cluster: Any = None
) -> Any:
    """Runs Grappler's default passes over a concrete function's graph, as the runtime would;
    `rewrite` changes its RewriterConfig first (a pass turned off); `meta`: meta_graph(concrete),
    and `cluster`: Grappler's device cluster, each made once for many runs."""
    config = config_pb2.ConfigProto()
    if rewrite is not None:
        rewrite(config.graph_options.rewrite_options)
    meta = meta if meta is not None else meta_graph(concrete)
    return tf_optimizer.OptimizeGraph(config, meta, cluster=cluster)


def meta_graph(concrete: Any) -> Any:
    """The function's graph as Grappler takes it: a MetaGraphDef whose fetches are its outputs."""
    graph = concrete.graph
    meta = tf.compat.v1.train.export_meta_graph(graph_def=graph.as_graph_def(), graph=graph)
    fetches = meta_graph_pb2.CollectionDef()
    for tensor in concrete.outputs:
        fetches.node_list.value.append(tensor.name)
    for op in graph.control_outputs:
        fetches.node_list.value.append(op.name)
    meta.collection_def["train_op"].CopyFrom(fetches)
    return meta


# The meta-optimizer's default passes, by their RewriterConfig field (the memory optimizer's
# "off" is NO_MEM_OPT); model pruning is a flag of its own.
PASSES = (
    "function_optimization",
    "common_subgraph_elimination",
    "constant_folding",
    "shape_optimization",
    "arithmetic_optimization",
    "layout_optimizer",
    "remapping",
    "loop_optimization",
    "dependency_optimization",
    "implementation_selector",
    "memory_optimization",
)


MAX_PASS_OPS = 1_000  # up to 2 x 12 Grappler runs: a bigger graph keeps its before and after only


def _only(kept: tuple[str, ...]) -> Callable[[Any], None]:
    """A RewriterConfig with only `kept` of the passes on ("model_pruning" its flag)."""
    config = rewriter_config_pb2.RewriterConfig

    def rewrite(options: Any) -> None:
        for name in PASSES:
            if name not in kept:
                setattr(options, name, config.NO_MEM_OPT if name == "memory_optimization" else config.OFF)
        options.disable_model_pruning = "model_pruning" not in kept

    return rewrite


def pass_effects(concrete: Any, meta: Any = None) -> tuple[int, list[PassEffect]]:
    """Grappler's passes one by one: the graph with every pass off, then each pass on its own
    (its diff against that start, op by op) and each turned off in turn. TF 2.21 dumps no graph
    per pass here, so this is the fallback: passes switched in RewriterConfig, results diffed."""

    meta = meta if meta is not None else meta_graph(concrete)
    # One cluster for every run: OptimizeGraph makes (and lists the devices of) one per call
    # otherwise, a third of a small graph's run. TF provisions one at a time: shut it after.
    cluster = gcluster.Cluster()

    def run(kept: tuple[str, ...]) -> Any:
        return optimize(concrete, _only(kept), meta, cluster)

    everything = ("model_pruning", *PASSES)
    try:
        start = nodes(run(()))
        alone = {name: nodes(run((name,))) for name in everything}
        # Turned off, a pass that does nothing on its own could still matter to another's work;
        # the runs are the view's cost, so only the passes that work alone are tried without.
        effects = []
        for name, graph in alone.items():
            without = None
            if graph != start:
                without = sum(op_types(run(tuple(p for p in everything if p != name))).values())
            effects.append(PassEffect(name, len(graph), without, **node_diff(start, graph)))
    finally:
        cluster.Shutdown()
    return len(start), effects


def nodes(graph_def: Any) -> dict[tuple[str, str], str]:
    """Every node by (function body, name) -> op type; "" is the top level."""
    found = {("", node.name): node.op for node in graph_def.node}
    for function in graph_def.library.function:
        found.update(((function.signature.name, node.name), node.op) for node in function.node_def)
    return found


def node_diff(before: dict, after: dict) -> dict[str, dict[str, int]]:
    """Op types of the nodes a pass removed and added, and of those it kept by name but gave a
    new op ("Sub -> Neg"), each counted."""
    rewritten = Counter(
        f"{before[key]} -> {after[key]}" for key in before.keys() & after.keys() if before[key] != after[key]
    )
    return {
        "removed": dict(Counter(before[key] for key in before.keys() - after.keys()).most_common()),
        "added": dict(Counter(after[key] for key in after.keys() - before.keys()).most_common()),
        "rewritten": dict(rewritten.most_common()),
    }


def op_count(concrete: Any) -> int:
    """The ops of one trace's graph, function bodies (tf.cond, tf.while_loop) included."""
    return sum(op_types(concrete.graph.as_graph_def()).values())


def flops(concrete: Any) -> int | None:
    """TensorFlow's own count of a graph's floating-point operations (its registered op
    statistics: MatMul 2*m*n*k, Add one per element). Ops of unknown shape, and ops with no
    statistic (Relu), count nothing."""
    builder = tf.compat.v1.profiler.ProfileOptionBuilder
    options = builder(builder.float_operation()).with_empty_output().build()
    try:
        with deprecation.silence():  # the profiler's v1 helpers warn once per process
            return int(tf.compat.v1.profiler.profile(concrete.graph, options=options).total_float_ops)
    except Exception:  # noqa: BLE001 - a cost figure is optional; the graph's view stands
        return None


def graph_info(concrete: Any, filename: str = "", passes: bool = False) -> GraphInfo:
    """The graph before and after Grappler; with `passes`, each of Grappler's passes too."""
    graph_def = concrete.graph.as_graph_def()
    before = op_types(graph_def)
    after: Counter[str]
    fetched: int | None = None
    meta = None
    try:
        if not concrete.outputs and not concrete.graph.control_outputs:
            after, note = Counter(), _(NOTHING_FETCHED).format(n=sum(before.values()))
            fetched = 0  # nothing is fetched: the work item keeps nothing
        else:
            meta = meta_graph(concrete)  # once: the passes one by one start from it too
            after = op_types(optimize(concrete, meta=meta))
            note = explain(before, after)
    except Exception as e:  # noqa: BLE001 - Grappler rejects some graphs; the unoptimised view still helps
        after, note = (
            Counter(),
            _("Grappler could not optimise this graph: {error}").format(error=f"{type(e).__name__}: {e}"),
        )
    effects: list[PassEffect] = []
    if passes and fetched is None and after:
        if sum(before.values()) > MAX_PASS_OPS:
            note = sentences(
                note,
                _("Grappler's passes one by one are left out: {n} ops, over {max}.").format(
                    n=sum(before.values()), max=MAX_PASS_OPS
                ),
            )
        else:
            try:
                fetched, effects = pass_effects(concrete, meta)
            except Exception:  # noqa: BLE001 - the passes are a view on top; the graph's counts stand
                pass
    ops = graph_ops(concrete.graph, filename)
    by_line = Counter(str(op.line) for op in ops if op.line is not None)
    return GraphInfo(
        op_count=sum(before.values()),
        op_count_optimized=sum(after.values()),
        op_types=dict(before.most_common()),
        op_types_optimized=dict(after.most_common()),
        dot=to_dot(graph_def),
        note=note,
        ops_by_line=dict(sorted(by_line.items(), key=lambda kv: int(kv[0]))),
        ops=ops[:MAX_LISTED_OPS],
        op_count_fetched=fetched,
        passes=effects,
    )


def graph_ops(graph: Any, filename: str, function: str = "", seen: set | None = None) -> list[GraphOp]:
    """Every op with the user's source line that created it (the innermost frame of the user's
    file in op.traceback), recursing into the bodies of loops, conds and nested tf.functions,
    which live in FuncGraphs of their own."""
    seen = set() if seen is None else seen
    # A body's placeholders are its FunctionDef's arguments, not nodes: op_count skips them too.
    ops = [
        GraphOp(op.name, op.type, _user_line(op, filename), function)
        for op in graph.get_operations()
        if not (function and op.type == "Placeholder")
    ]
    for name, atomic in getattr(graph, "_functions", {}).items():  # private; absent: top level only
        body = getattr(atomic, "graph", None)
        if body is not None and name not in seen:
            seen.add(name)
            ops += graph_ops(body, filename, str(name), seen)
    return ops


# Not ops XLA compiles: a FuncGraph's arguments, and ordering-only nodes.
_NOT_COMPILED = frozenset({"Placeholder", "NoOp"})


def xla_verdict(info: GraphInfo, device: str, compiled: bool | None) -> XlaVerdict:
    """The ops of the graph with no kernel for XLA's device here ("/GPU:0" or "/CPU:0"),
    before anything compiles (XLA's own error names only the first it meets)."""
    jit = "XLA_GPU_JIT" if "GPU" in device.upper() else "XLA_CPU_JIT"
    _start_xla()
    known: dict[str, bool] = {}
    unsupported = []
    for op in info.ops:
        if op.type in _NOT_COMPILED:
            continue
        if op.type not in known:
            registered = kernels.get_registered_kernels_for_op(op.type).kernel
            known[op.type] = any(k.device_type == jit for k in registered)
        if not known[op.type]:
            unsupported.append(op)
    return XlaVerdict(jit, unsupported, compiled)


@functools.cache
def _start_xla() -> None:
    """XLA registers its kernels when its device first starts: one tiny compile, once."""
    tf.function(lambda x: x + 1, jit_compile=True)(tf.constant(1.0))


def _user_line(op: Any, filename: str) -> int | None:
    try:
        frames = op.traceback or []  # None for ops TF made without a Python stack
    except Exception:  # noqa: BLE001 - private API: the line is optional
        return None
    # Only frames inside the traced body count: before tracing entered it, the only user frame
    # is the call site, which made the argument placeholders and output identities.
    entered = next((i for i, frame in enumerate(frames) if frame.name == "func_graph_from_py_func"), None)
    if entered is None:
        return None
    for frame in reversed(frames[entered + 1 :]):
        if frame.filename == filename:
            return int(frame.lineno)
    return None


def explain(before: Counter, after: Counter) -> str:
    """Says why the counts moved: folded or pruned ops, and control flow lowered by Grappler."""
    notes = []
    n_before, n_after = sum(before.values()), sum(after.values())
    if n_after < n_before:
        gone = [f"{op} {before[op]}->{after.get(op, 0)}" for op in before if after.get(op, 0) < before[op]]
        notes.append(
            _(
                "Grappler removed {removed} of {total} ops (constant folding, dead-code and "
                "duplicate elimination): {ops}."
            ).format(removed=n_before - n_after, total=n_before, ops=", ".join(gone[:8]))
        )
    lowered = [op for op in before if op in LOWERED and after.get(op, 0) < before[op]]
    if any(op in CONTROL_FLOW_V1 for op in after) and lowered:
        notes.append(
            _(
                "{ops} were lowered to Switch/Merge/Enter/Exit control-flow ops, so op "
                "types change, not only counts."
            ).format(ops=", ".join(sorted(lowered)))
        )
    if n_after > n_before:
        notes.append(
            _(
                "Grappler added {added} ops (lowering control flow or inlining function bodies expands them)."
            ).format(added=n_after - n_before)
        )
    return sentences(*notes) or _("Grappler left the op count unchanged.")


def to_dot(graph_def: Any, limit: int = MAX_DOT_NODES) -> str:
    """A graphviz drawing of the top-level graph; large graphs are cut with a visible note."""
    nodes = list(graph_def.node)
    shown = {n.name for n in nodes[:limit]}
    lines = [
        "digraph G {",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica", fontsize=10];',
    ]
    for node in nodes[:limit]:
        lines.append(f'  "{node.name}" [label="{node.name}\\n{node.op}"];')
        for raw in node.input:
            source = raw.lstrip("^").split(":")[0]
            if source in shown:
                style = " [style=dashed]" if raw.startswith("^") else ""
                lines.append(f'  "{source}" -> "{node.name}"{style};')
    if len(nodes) > limit:
        lines.append(
            f'  more [label="... {len(nodes) - limit} more ops not drawn", shape=note, fillcolor="#fff4d6"];'
        )
    lines.append("}")
    return "\n".join(lines)
