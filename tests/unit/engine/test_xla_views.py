"""XLA's views (engine/xla.py) and the cost of each trace, against plain TensorFlow: a job in a
fresh process (as the sandbox's worker runs it, XLA's passes dumped) beside plain TF's own HLO
in another fresh process without the playground's flags, and FLOPs against the arithmetic."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

tf = pytest.importorskip("tensorflow")

from ui_support import SubprocessExecutor  # noqa: E402

from playground.contract.job import HloPass, Job  # noqa: E402
from playground.engine import xla  # noqa: E402
from playground.engine.pipeline import analyze  # noqa: E402
from playground.reports import hlo_passes  # noqa: E402

SOURCE = """import tensorflow as tf

@tf.function(jit_compile=True)
def scaled(a, b):
    c = tf.matmul(a, b)
    return tf.reduce_sum(tf.nn.relu(c) * 1.0 + 0.0, axis=0)
"""
CALL = "float32[8,4], float32[4,3]"

# Plain TF, a fresh process, no XLA_FLAGS: the module as XLA takes it, and after its passes.
PLAIN = """import json, tensorflow as tf
def scaled(a, b):
    c = tf.matmul(a, b)
    return tf.reduce_sum(tf.nn.relu(c) * 1.0 + 0.0, axis=0)
ir = tf.function(scaled, jit_compile=True).experimental_get_compiler_ir(tf.ones([8, 4]), tf.ones([4, 3]))
print(json.dumps({"hlo": ir(stage="hlo"), "optimized": ir(stage="optimized_hlo")}))
"""


@pytest.fixture(scope="module")
def dumped():
    report = SubprocessExecutor().submit(Job(source=SOURCE, function="scaled", calls=(CALL,), passes=True))
    (function,) = report.functions
    return function


@pytest.fixture(scope="module")
def plain():
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    done = subprocess.run([sys.executable, "-c", PLAIN], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_passes_start_where_plain_tfs_hlo_starts_and_end_where_its_optimized_hlo_ends(dumped, plain):
    cost, passes = dumped.xla_cost, dumped.hlo_passes
    assert cost is not None and len(passes) >= 3
    assert passes[0].instructions == cost.instructions == xla.instruction_count(plain["hlo"])
    assert passes[-1].instructions == cost.instructions_optimized == xla.instruction_count(plain["optimized"])
    # The last snapshot's entry computation is plain TF's optimized one, instruction by instruction.
    assert entry(passes[-1].hlo) == entry(plain["optimized"])
    assert cost.compile_s > 0 and cost.buffer_bytes is not None
    # Its buffers hold at least both parameters and the output (float32).
    assert cost.buffer_bytes >= 4 * (8 * 4 + 4 * 3 + 3)


def test_the_algebraic_simplifier_is_named_for_removing_the_multiply_by_one(dumped):
    passes = dumped.hlo_passes
    simplified = next(i for i, p in enumerate(passes) if p.name == "algsimp")
    assert " multiply(" in passes[simplified - 1].hlo and " multiply(" not in passes[simplified].hlo
    assert passes[simplified].instructions < passes[simplified - 1].instructions
    change = hlo_passes.change_of(passes, simplified)
    assert any(line.startswith("-") and " multiply(" in line for line in change.splitlines())
    assert all(xla.MARK not in p.hlo for p in passes)  # the inspector's name never shows


def test_only_the_inspectors_module_is_dumped_not_the_users_own_compiles(dumped):
    # The user's jit_compile calls compiled a module too; one module's passes came back, and
    # one module's worth: a single pipeline start at the beginning.
    assert sum(1 for p in dumped.hlo_passes if p.pipeline == "sharding-removal") == 1


def entry(hlo: str) -> list[str]:
    """The ENTRY computation's instructions, without the module's own numbering and metadata."""
    body = hlo[hlo.index("\nENTRY") :]
    body = re.sub(r"a_inference_\w+?_\d+__", "F", body)
    body = re.sub(r", metadata=\{[^}]*\}", "", body)
    return [line.strip() for line in body.splitlines()[1:] if line.strip() and line.strip() != "}"]


def test_flops_per_trace_are_the_arithmetic_of_each_traced_shape():
    job = Job(
        source=SOURCE.replace("(jit_compile=True)", ""),
        function="scaled",
        calls=(CALL, "float32[16,4], float32[4,5]"),
    )
    (function,) = analyze(job).functions

    def expected(m, k, n):  # matmul 2mkn; *1 and +0 one per element; the sum's adds. TF
        return 2 * m * k * n + 2 * m * n + (m - 1) * n  # registers no statistic for Relu: 0

    assert function.trace_flops == [expected(8, 4, 3), expected(16, 4, 5)]
    ops = len(
        tf.function(scaled_plain)
        .get_concrete_function(tf.ones([8, 4]), tf.ones([4, 3]))
        .graph.get_operations()
    )
    assert function.trace_ops == [ops, ops]  # no cond or loop: the top level is every op


def scaled_plain(a, b):
    c = tf.matmul(a, b)
    return tf.reduce_sum(tf.nn.relu(c) * 1.0 + 0.0, axis=0)


def test_in_a_process_that_did_not_dump_the_hlo_and_its_cost_still_come_back():
    (function,) = analyze(Job(source=SOURCE, function="scaled", calls=(CALL,), passes=True)).functions
    assert xla._dump_dir is None  # pytest's process set no flags: no passes; the rest stands
    assert function.hlo_passes == []
    assert function.hlo and function.xla_cost is not None
    assert function.xla_cost.instructions == xla.instruction_count(function.hlo)


def test_diff_search_and_labels_of_snapshots():
    a = HloPass("simplification", "", "x = add(a, b)\ny = multiply(x, one)\n", 2)
    b = HloPass("simplification", "algsimp", "x = add(a, b)\n", 1)
    passes = [a, b]
    assert hlo_passes.label(passes, 1) == "1 · simplification / algsimp (2 -> 1 instructions)"
    assert "-y = multiply(x, one)" in hlo_passes.diff(a, b).splitlines()
    assert hlo_passes.search(passes, "multiply") == [(0, 1)]
    assert hlo_passes.search(passes, "add(") == [(0, 1), (1, 1)]
    cut = HloPass("simplification", "cse", "", 1)
    assert "size cap" in hlo_passes.diff(b, cut)


def test_the_same_pass_on_two_sides_pairs_by_pipeline_name_and_turn():
    def snap(pipeline: str, name: str) -> HloPass:
        return HloPass(pipeline, name, f"{pipeline} {name}\n", 1)

    a = [snap("s", ""), snap("simp", "algsimp"), snap("simp", "algsimp"), snap("late", "fusion")]
    b = [snap("s", ""), snap("simp", "algsimp"), snap("late", "fusion"), snap("late", "copy")]
    # algsimp changed a's module twice and b's once: only its first turn is on both sides.
    assert hlo_passes.same_passes(a, b) == [(0, 0), (1, 1), (3, 2)]
