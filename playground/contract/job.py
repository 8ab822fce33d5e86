"""Job and Report: the only data that crosses between front-ends, sandbox and engine.

Both are frozen dataclasses of plain values with a JSON round trip, so a test can feed the
UI a recorded report and a fake executor can stand in for the worker pool.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

from .options import RunOptions

Status = Literal["ok", "error", "timeout", "memory", "killed"]
Mode = Literal["eager", "graph", "xla"]


@dataclass(frozen=True)
class Job(RunOptions):
    """What to analyse: source, entry, call plan (CLI grammar), and the run's options
    (contract/options.py: input_signature, reduce_retracing, jit_compile, timing, ...)."""

    source: str
    function: str | None = None  # None: run the source as a script
    calls: tuple[str, ...] = ()
    timeout_s: float = 30.0
    filename: str = "playground_input.py"  # shown in tracebacks and to AutoGraph
    export: bool = False  # write a SavedModel and TensorBoard graph log
    verify: str | None = None  # verify this attached SavedModel; runs no user code
    attachments: dict[str, str] = field(default_factory=dict)  # name -> host dir, copied in
    tf_version: str = ""  # "": the default install; else one listed by `python -m playground versions`
    # Language of the report's sentences (pitfall messages and fixes, notes); codes and data
    # stay language-neutral. i18n.LANGUAGES: "en" or "zh_CN".
    language: str = "en"


@dataclass(frozen=True)
class ErrorInfo:
    type: str  # the Python exception's name: "SyntaxError"
    message: str
    line: int | None = None  # in the user's file
    column: int | None = None  # 1-based, where Python knows it (syntax errors)
    traceback: str = ""  # the user's frames (and TF's), as Python prints them

    def headline(self) -> str:
        """The line a person reads first. TensorFlow's "in user code:" message starts with
        that phrase and ends with the error itself ("AttributeError: 'SymbolicTensor' object
        has no attribute 'numpy'"): the end, without the repeated type."""
        lines = [line.strip() for line in self.message.splitlines() if line.strip()]
        if not lines:
            return ""
        if lines[0] == "in user code:" and len(lines) > 1:
            return lines[-1].removeprefix(f"{self.type}: ")
        return lines[0]


@dataclass(frozen=True)
class Warning:
    code: str
    line: int | None
    message: str
    fix: str = ""
    function: str | None = None


@dataclass(frozen=True)
class CallRecord:
    index: int
    args: str  # the call as written, e.g. "float32[3]"
    retraced: bool
    reason: str | None
    stdout: str
    output: str | None
    error: ErrorInfo | None = None
    tracing_count: int = 0  # TF's count after this call
    duration_s: float = 0.0
    handled: bool = False  # script mode: it raised, and the script caught it
    line: int | None = None  # the user's line that made the call (script mode)
    site: str = ""  # the same as file:line ("train.py:42"); trace mode names any of the user's files
    stack: list[str] = field(default_factory=list)  # the user's frames above it, innermost first


@dataclass(frozen=True)
class CodeLine:
    """Line `line` of the converted code came from line `source_line` of the user's file."""

    line: int
    source_line: int


@dataclass(frozen=True)
class GraphOp:
    name: str
    type: str
    line: int | None  # the user's source line that created it
    function: str = ""  # "" top level, else the body it lives in (while_body)


@dataclass(frozen=True)
class PassEffect:
    """One Grappler pass: the op count it leaves on its own (every other pass off), and the
    count the rest of the pipeline leaves with it turned off (passes that do the same work
    hide each other there)."""

    name: str  # RewriterConfig's field: constant_folding, arithmetic_optimization, ...
    op_count_alone: int
    op_count_without: int | None = None  # None: not tried (the pass changes nothing alone)
    # Alone, against the graph with every pass off: op types of the nodes it removed, added,
    # and kept by name with a new op ("Sub -> Neg").
    removed: dict[str, int] = field(default_factory=dict)
    added: dict[str, int] = field(default_factory=dict)
    rewritten: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class GraphInfo:
    op_count: int
    op_count_optimized: int
    op_types: dict[str, int]
    op_types_optimized: dict[str, int] = field(default_factory=dict)
    dot: str = ""  # graphviz of the last traced graph
    note: str = ""  # why before/after differ (folding, lowering)
    ops_by_line: dict[str, int] = field(default_factory=dict)  # user's line -> ops it made
    ops: list[GraphOp] = field(default_factory=list)  # every op, nested bodies too
    # Grappler's passes one by one: the op count with every pass off (where each starts), and
    # each pass alone and turned off in turn.
    op_count_fetched: int | None = None
    passes: list[PassEffect] = field(default_factory=list)


@dataclass(frozen=True)
class ModeTiming:
    median_s: float
    samples_s: list[float]
    iqr_s: float = 0.0
    first_call_s: float = 0.0  # trace (+ compile) + one run
    noisy: bool = False
    peak_memory_bytes: int | None = None  # GPU only: tf.config.experimental.get_memory_info


@dataclass(frozen=True)
class SweepPoint:
    size: int
    eager_s: float | None
    graph_s: float | None
    xla_s: float | None
    graph_traces: int  # the graph instance's tracing count after this size
    xla_traces: int | None = None


@dataclass(frozen=True)
class Timing:
    eager: ModeTiming
    graph: ModeTiming
    xla: ModeTiming | None
    first_call_s: dict[str, float | None]
    speedup_graph: float = 0.0
    speedup_xla: float | None = None
    speedup_range: dict[str, list[float]] = field(default_factory=dict)  # mode -> [low, high]
    break_even_calls: dict[str, int | None] = field(default_factory=dict)
    phases: dict[str, dict[str, float]] = field(default_factory=dict)  # trace/compile/run per mode
    notes: list[str] = field(default_factory=list)
    sweep: list[SweepPoint] = field(default_factory=list)
    sweep_label: str = ""  # e.g. "x dim 0"
    environment: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FunctionReport:
    name: str
    tracing_count: int
    calls: list[CallRecord]
    concrete_signatures: list[str]
    converted_code: str | None
    graph: GraphInfo | None
    hlo: str | None
    timing: Timing | None
    conversion_note: str = ""  # e.g. why AutoGraph could not convert a lambda
    retracing_warnings: list[str] = field(default_factory=list)
    line: int | None = None  # where the function is defined
    global_names: list[str] = field(default_factory=list)  # module names bound to it at the end
    converted_code_lines: list[CodeLine] = field(default_factory=list)  # converted -> source
    # Who made it: "" for the user's own; a library's, as "keras: Trainer.make_train_function".
    maker: str = ""
    made_at: int | None = None  # the user's line on the stack when it was made
    made_site: str = ""  # the same as file:line ("train.py:26")
    calls_not_listed: int = 0  # a library's calls that reused a trace: counted, not listed
    trace_ops: list[int] = field(default_factory=list)  # op count of each graph in its cache
    # FLOPs per graph, by TensorFlow's registered op statistics (None: not counted); ops of
    # unknown shape, and ops with no statistic (Relu), count nothing.
    trace_flops: list[int | None] = field(default_factory=list)
    tracing_s: float = 0.0  # time in the calls that traced (tracing, and the call itself)
    numbers: Numbers | None = None  # outputs compared across eager, graph and XLA (--numbers)
    xla: XlaVerdict | None = None  # the ops XLA cannot take, and whether it compiled
    hlo_passes: list[HloPass] = field(default_factory=list)  # XLA's passes, in the order run
    xla_cost: XlaCost | None = None  # what XLA's passes took, and what its buffers take


@dataclass(frozen=True)
class HloPass:
    """The module as XLA dumped it: at a pipeline's start, or after a pass that changed it
    (XLA dumps nothing after a pass that changed nothing), in the order XLA ran them."""

    pipeline: str  # "simplification"
    name: str  # the pass: "algsimp"; "" at the pipeline's start
    hlo: str  # the module after it; "" past the report's cap (engine/xla.py)
    instructions: int


@dataclass(frozen=True)
class XlaCost:
    """XLA's own figures for one function's module, from the compile behind its HLO views."""

    compile_s: float  # XLA's HLO passes over the module, measured once
    instructions: int  # HLO instructions before the passes
    instructions_optimized: int
    buffer_bytes: int | None = None  # XLA's buffer assignment: parameters, temporaries, output


@dataclass(frozen=True)
class XlaVerdict:
    """What XLA can take of a function's graph, read before it compiles: the ops with no XLA
    kernel on this device (each with the user's line), and with jit_compile on, whether XLA
    really compiled it."""

    device: str  # "XLA_CPU_JIT" or "XLA_GPU_JIT"
    unsupported: list[GraphOp] = field(default_factory=list)  # in the graph's order
    compiled: bool | None = None  # None: jit_compile was off, nothing was compiled


@dataclass(frozen=True)
class NumbersDiff:
    """One output of one call in two modes: `a` (the reference, eager first) against `b`."""

    a: Mode
    b: Mode
    verdict: Literal["match", "differs", "mismatch", "failed"]
    output: str = ""  # which output of a structure: "[1]", "['loss']"; "" for a single one
    max_abs: float | None = None
    max_rel: float | None = None
    where: str = ""  # the element with the largest error: "[3, 1]"
    a_value: str = ""  # the two values there
    b_value: str = ""
    note: str = ""  # shapes or dtypes that differ; the mode that raised, and why


@dataclass(frozen=True)
class NumbersCall:
    index: int  # the call's number in the plan, from 0
    args: str  # the call as written
    diffs: list[NumbersDiff]


@dataclass(frozen=True)
class Numbers:
    """Each successful call's outputs, eager against graph against XLA (--numbers)."""

    tolerance: float
    calls: list[NumbersCall]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ExportSignature:
    """One SavedModel signature, as `saved_model_cli show --all` lists it, and its check."""

    key: str  # "serving_default"
    inputs: dict[str, str]  # name -> "float32[None,3]"
    outputs: dict[str, str]
    method: str = "tensorflow/serving/predict"
    verified: bool | None = None  # None: not checked (no call fitted it)
    max_abs_diff: float | None = None
    message: str = ""


@dataclass(frozen=True)
class ExportInfo:
    signatures: list[ExportSignature]
    verified: bool  # reloaded in a fresh worker and every check passed
    path: str  # host directory holding savedmodel/ and tensorboard/
    reason: str = ""  # what was saved and why, or why nothing could be
    listing: str = ""  # saved_model_cli-style text
    files: list[str] = field(default_factory=list)
    size_bytes: int = 0


@dataclass(frozen=True)
class SandboxInfo:
    isolation: str  # "bubblewrap" | "process" | "none"
    limits: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # CPU seconds the host read from /proc itself (never a number the job sent); the wall
    # time it measured is the report's duration_s.
    cpu_s: float | None = None
    # The most memory the job's processes held together, from its cgroup (sandbox/job_cgroup.py);
    # None where jobs get no cgroup.
    memory_peak_mb: float | None = None


@dataclass(frozen=True)
class ExecutorInfo:
    kind: str  # "local" | "ray" | "inline"
    node: str
    actor: str = ""  # Ray: the id of the node's pool actor that ran it
    warm: bool | None = None  # forked from a zygote already warm when the job came


# Trace mode's report cites lines of the program's files, which it does not hold: it carries
# those lines, at most MAX_CITED_LINES of them, each cut at MAX_CITED_CHARS (engine/watch.py).
# A file opened in the page is held to the same bounds (contract/protocol.py).
MAX_CITED_LINES = 200
MAX_CITED_CHARS = 300


@dataclass(frozen=True)
class SourceLine:
    """A line of the program that a trace-mode report cites, named as the report names it."""

    file: str  # "train.py", relative to the program's folder
    line: int
    text: str  # the line as written, its trailing whitespace cut


@dataclass(frozen=True)
class TraceRun:
    """Trace mode: the program ran in the user's own process and environment, with no sandbox,
    and these are the lines of it the report cites (its calls' sites, where each function was
    made, where it raised)."""

    program: str = ""  # as the report names its files: "train.py"; "" for a watched block
    lines: list[SourceLine] = field(default_factory=list)


@dataclass(frozen=True)
class Fallback:
    """A private TF API the engine could not use on this version: what ran instead, or why the
    feature is missing from the report."""

    feature: str  # "function cache", "Grappler", "HLO", ...
    detail: str  # "read through _variable_creation_fn" / "unavailable: ..."
    available: bool = True  # False: the feature is absent from this report


@dataclass(frozen=True)
class ModuleRun:
    """Function mode: what the pasted file's own top-level code did when it ran, before the
    plan's first call (it runs first, as an import of the file would), and how the plan's
    tf.function was made. The plan's calls are counted apart, on a tf.function of their own."""

    entry: str  # the entry as picked: "train_step"
    stdout: str = ""  # what the module's top-level code printed (print, tf.print, stderr)
    # Its calls to the entry's tf.function(s) (the user's @tf.function, or one the module
    # made of the entry's Python function), counted while it ran; None: it made none.
    calls: int | None = None
    traces: int | None = None  # TF's tracing count of those functions when the module finished
    retracing_warnings: list[str] = field(default_factory=list)  # TF's, logged while it ran
    # The entry is a plain def: the playground wrapped it in tf.function for the plan.
    # Undecorated, Python runs it eagerly: no traces, its side effects on every call.
    wrapped: bool = False


@dataclass(frozen=True)
class Report:
    tensorflow_version: str
    device: str
    status: Status
    error: ErrorInfo | None
    stdout: str
    warnings: list[Warning]
    functions: list[FunctionReport]
    sandbox: SandboxInfo | None = None
    executor: ExecutorInfo | None = None
    message: str = ""  # one line a person reads first
    duration_s: float = 0.0
    environment: dict[str, Any] = field(default_factory=dict)
    export: ExportInfo | None = None
    fallbacks: list[Fallback] = field(default_factory=list)  # per-version stand-ins (versions.py)
    trace: TraceRun | None = None  # trace mode's: the program, and the lines the report cites
    # tf.functions libraries made for the program (Keras's train step, tf.data's map functions,
    # a restored SavedModel's), each with its maker; `functions` holds the user's own.
    library_functions: list[FunctionReport] = field(default_factory=list)
    module: ModuleRun | None = None  # function mode: the module's own code, before the plan

    @property
    def tracing_count(self) -> int:
        return sum(f.tracing_count for f in self.functions)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(to_dict(self), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> Report:
        return from_dict(cls, json.loads(text))


def to_dict(obj: Any) -> Any:
    return dataclasses.asdict(obj)


def job_to_json(job: Job) -> str:
    return json.dumps(to_dict(job))


def job_from_json(text: str) -> Job:
    return from_dict(Job, json.loads(text))


def from_dict(cls: Any, data: Any) -> Any:
    """Rebuilds a dataclass tree from asdict() output, guided by the type hints."""
    origin = typing.get_origin(cls)
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):  # a dataclass, not an instance
        hints = typing.get_type_hints(cls)
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: from_dict(hints[k], v) for k, v in data.items() if k in names})
    if data is None:
        return None
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(cls) if a is not type(None)]
        return from_dict(inner[0], data) if len(inner) == 1 else data
    if origin is list:
        (item,) = typing.get_args(cls)
        return [from_dict(item, v) for v in data]
    if origin is tuple:
        item = typing.get_args(cls)[0]
        return tuple(from_dict(item, v) for v in data)
    if origin is dict:
        _, value = typing.get_args(cls)
        return {k: from_dict(value, v) for k, v in data.items()}
    return data
