"""Graph inspection: nested op counts, Grappler before/after, lowering notes, DOT and HLO."""

from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")

from playground import gallery
from playground.contract.job import Job
from playground.engine.pipeline import analyze


def test_seed_benchmark_is_dead_code_for_grappler():
    source = (
        "import tensorflow as tf\n\n@tf.function\ndef g(a, b):\n"
        "    for _ in range(100):\n        c = tf.matmul(a, b)\n    return c\n"
    )
    graph = analyze(Job(source, "g", ("float32[8,8], float32[8,8]",))).functions[0].graph
    assert graph.op_types["MatMul"] == 100
    assert graph.op_count == 103
    assert graph.op_types_optimized.get("MatMul", 0) == 1
    assert graph.op_count_optimized <= 5
    assert "Grappler removed" in graph.note and "MatMul 100->1" in graph.note


def test_control_flow_bodies_are_counted_and_lowering_is_explained():
    report = analyze(gallery.BY_SLUG["autograph-control-flow"].job())
    graph = report.functions[0].graph
    top_level = report.functions[0].graph.dot.count("\\n")  # one label line per drawn node
    assert "StatelessIf" in graph.op_types
    assert "While" in graph.op_types or "StatelessWhile" in graph.op_types
    assert "more ops not drawn" not in graph.dot and graph.op_count > top_level  # bodies counted
    assert any(op in graph.op_types_optimized for op in ("Switch", "Merge", "Enter", "Exit"))
    assert "lowered to Switch/Merge/Enter/Exit" in graph.note


def test_large_graph_drawing_is_cut_with_a_note():
    report = analyze(gallery.BY_SLUG["dead-matmuls"].job())
    dot = report.functions[0].graph.dot
    assert dot.startswith("digraph G {") and "more ops not drawn" in dot


def test_hlo_only_with_jit_compile_and_errors_are_explained():
    report = analyze(gallery.BY_SLUG["xla"].job())
    assert "HloModule" in report.functions[0].hlo
    plain = analyze(
        gallery.BY_SLUG["xla"].job(
            jit_compile=False, source=gallery.BY_SLUG["xla"].source.replace("(jit_compile=True)", "")
        )
    )
    assert plain.functions[0].hlo is None
    # A string op cannot be compiled by XLA: the call fails, and the report says why.
    source = "import tensorflow as tf\n\ndef s(x):\n    return tf.strings.length(tf.strings.as_string(x))\n"
    report = analyze(Job(source, "s", ("int32[3]",), jit_compile=True))
    f = report.functions[0]
    assert f.calls[0].error is not None and "AsString" in f.calls[0].error.message
    assert f.hlo is None and "No HLO: no call succeeded" in f.conversion_note


def test_a_function_that_returns_nothing_is_all_dead_code():
    report = analyze(gallery.BY_SLUG["article-benchmark"].job())
    graph = report.functions[0].graph
    assert graph.op_types["MatMul"] == 100 and graph.op_count_optimized == 0
    assert "all 112 ops are dead code" in graph.note
    assert report.stdout.startswith("Eager: ")


def test_grappler_passes_one_by_one_name_the_passes_that_drop_the_dead_matmuls():
    import tensorflow as tf

    from playground.engine import graphs
    from playground.reports import tables

    @tf.function
    def graph_matmul(a, b):
        for _ in range(100):
            c = tf.matmul(a, b)
        return c

    info = graphs.graph_info(
        graph_matmul.get_concrete_function(tf.TensorSpec([8, 8]), tf.TensorSpec([8, 8])), passes=True
    )
    alone = {p.name: p.op_count_alone for p in info.passes}
    without = {p.name: p.op_count_without for p in info.passes}
    # Every pass off: the traced graph as it is (100 MatMuls, the arguments, the output).
    assert info.op_count_fetched == info.op_count and alone["model_pruning"] == info.op_count_optimized
    assert {n for n, ops in alone.items() if ops < info.op_count} == {
        "model_pruning",
        "constant_folding",
        "dependency_optimization",
    }  # three passes each drop the 99 dead MatMuls on their own ...
    # ... so no one of them is missed; a pass that does nothing alone is not tried without.
    assert {without[n] for n in ("model_pruning", "constant_folding", "dependency_optimization")} == {
        info.op_count_optimized
    }
    assert without["remapping"] is None
    # Op by op: pruning removes the 99 MatMuls nothing fetches (100 made, the last returned).
    pruning = next(p for p in info.passes if p.name == "model_pruning")
    assert (pruning.removed, pruning.added, pruning.rewritten) == ({"MatMul": 100 - 1}, {}, {})
    summary = tables.passes_summary(info)
    assert f"model_pruning {info.op_count} -> {info.op_count_optimized}" in summary
    assert "Turning any one of them off changes nothing" in summary


def test_a_pass_no_other_can_stand_in_for_is_named_as_needed():
    import tensorflow as tf

    from playground.engine import graphs
    from playground.reports import tables

    @tf.function
    def folded(x):
        w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        return x * (tf.reduce_sum(w) * 2.0 + tf.sqrt(tf.constant(9.0)))

    info = graphs.graph_info(folded.get_concrete_function(tf.TensorSpec([2, 2])), passes=True)
    folding = next(p for p in info.passes if p.name == "constant_folding")
    assert folding.op_count_alone < info.op_count and folding.op_count_without > info.op_count_optimized
    # Op by op: the arithmetic on constants goes (w, 2.0, 9.0 and the sum's axis; its *2.0,
    # sum and sqrt), and the + that joined them becomes the constant holding their value.
    assert folding.removed == {"Const": 4, "Mul": 1, "Sqrt": 1, "Sum": 1}
    assert (folding.added, folding.rewritten) == ({}, {"AddV2 -> Const": 1})
    assert "Without constant_folding, the rest leaves more ops" in tables.passes_summary(info)
