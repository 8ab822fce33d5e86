"""The seed article's sections in the article's own order, the gallery examples each one holds,
and the verdict a live run gives on the article's claim (presenter mode steps through these).

The gallery list (examples.py) is grouped by topic, not by the article's order, so the order
is fixed here. Pure data and arithmetic: no TensorFlow, no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..contract.i18n import N_, _
from ..contract.job import Report
from .model import ClaimCheck, Example, check


@dataclass(frozen=True)
class Section:
    number: str  # the article's numbering: "2.1"; "7.2" is item 2 of section 七
    title: str  # English, marked with N_; shown through _()
    seed_heading: str  # the heading as the seed writes it, to locate the section in the seed
    slugs: tuple[str, ...]


# TRANSLATORS: each title is a section heading of the seed article; its own Chinese heading
# is the seed_heading beside it.
SECTIONS: tuple[Section, ...] = (
    Section(
        "1",
        N_("Eager execution and graph mode: two ways to run"),
        "一、即刻执行与图模式：两种执行范式的本质差异",
        ("article-benchmark", "dead-matmuls"),
    ),
    Section(
        "2.1",
        N_("Polymorphic dispatch: one signature, one graph"),
        "2.1 多态分发：一个签名对应一个计算图",
        (
            "retracing",
            "scripted-snippet",
            "python-literals",
            "python-scalar-arg",
            "tensor-scalar-arg",
            "many-shapes",
        ),
    ),
    Section(
        "2.2",
        N_("input_signature: precise control over tracing"),
        "2.2 input_signature：精确控制追踪行为",
        ("input-signature",),
    ),
    Section(
        "3.1",
        N_("AutoGraph's conversion rules"),
        "3.1 AutoGraph 转换规则详解",
        ("autograph-control-flow", "tf-print", "len-on-tensor"),
    ),
    Section(
        "3.2",
        N_("AutoGraph's hidden limits"),
        "3.2 AutoGraph 的隐含限制",
        (
            "cond-branch-shapes",
            "loop-shape-change",
            "shape-invariants",
            "side-effect-numpy",
            "side-effect-list",
            "tensor-array",
        ),
    ),
    Section(
        "4.1",
        N_("Creating variables inside tf.function"),
        "4.1 在 tf.function 中创建变量",
        ("variable-in-function", "variable-outside", "module-counter"),
    ),
    Section(
        "4.2",
        N_("Python global state and mutable objects"),
        "4.2 Python 全局状态与可变对象",
        ("captured-global", "threshold-argument"),
    ),
    Section("4.3", N_("Exceptions and locating errors"), "4.3 异常处理与错误定位", ("run-eagerly",)),
    Section("5.1", N_("Strategies for fewer traces"), "5.1 减少追踪次数的策略", ("signature-mismatch",)),
    Section(
        "5.2",
        N_("XLA compilation"),
        "5.2 XLA 编译：进一步压榨性能",
        ("xla", "xla-unsupported", "xla-numbers"),
    ),
    Section(
        "7.2",
        N_("Debugging tools: experimental_relax_shapes"),
        "2. tf.function 的 experimental_relax_shapes",
        ("reduce-retracing-fixed", "relax-shapes-rank"),
    ),
    Section(
        "7.4", N_("Debugging tools: autograph.to_code()"), "4. autograph.to_code() 检查转换结果", ("to-code",)
    ),
)

ORDER: tuple[str, ...] = tuple(slug for section in SECTIONS for slug in section.slugs)
SECTION_OF: dict[str, Section] = {slug: s for s in SECTIONS for slug in s.slugs}

# Examples whose article claim TF 2.21 contradicts (README, "Where TF 2.21 disagrees with the
# article"): when a run meets the gallery's expectation, the article's claim does not hold.
ARTICLE_CONTRADICTED = frozenset(
    {
        "article-benchmark",
        "dead-matmuls",  # the speedup is dead code that Grappler prunes
        "relax-shapes-rank",  # 3 traces, not 2
        "cond-branch-shapes",  # branches of shapes [10] and [5] run fine
        "side-effect-numpy",  # .numpy() raises instead of appending once
        "variable-in-function",  # the first call fails, not "a variable per trace"
        "len-on-tensor",  # a dynamic dimension raises, no trace-time value
    }
)


def neighbour(slug: str, step: int) -> str | None:
    """The example `step` places after `slug` in the article's order; None past either end.
    A slug outside the order (none today) steps from the start."""
    index = ORDER.index(slug) if slug in ORDER else -1 if step > 0 else len(ORDER)
    target = index + step
    return ORDER[target] if 0 <= target < len(ORDER) else None


@dataclass(frozen=True)
class Verdict:
    """TensorFlow's answer to the article's claim, from one live run of the example."""

    kind: str  # "holds", "does-not-hold", "unexpected" or "unchecked"
    checks: tuple[ClaimCheck, ...]  # the measured values behind it

    def answer(self) -> str:
        """Is the article right? In a word or a short phrase, for a table's cell."""
        return _(ANSWERS[self.kind])


ANSWERS = {
    "holds": N_("yes"),
    "does-not-hold": N_("no"),
    "unexpected": N_("no verdict: this run did not do what was measured before"),
    "unchecked": N_("not checked"),
}


def verdict(example: Example, report: Report) -> Verdict:
    """holds / does-not-hold when the run did what the gallery expects of this TF version;
    "unexpected" when it did not (then the run, not the article, is the news)."""
    checks = tuple(check(example, report))
    if not checks:
        return Verdict("unchecked", checks)
    if not all(c.holds for c in checks):
        return Verdict("unexpected", checks)
    return Verdict("does-not-hold" if example.slug in ARTICLE_CONTRADICTED else "holds", checks)
