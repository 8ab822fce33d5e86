"""The examples: one per point of the seed article, each with the article's claim and what
TF 2.21 really does (measured, and re-checked against every live run)."""

from __future__ import annotations

from ..contract.i18n import N_
from .model import Example, Expectation

EXAMPLES: list[Example] = [
    Example(
        slug="retracing",
        tab="Traces",
        title=N_("Tracing and polymorphic dispatch"),
        explanation=N_(
            "tf.function traces the Python body once per new input signature (shape and dtype) "
            "and caches the graph. The Python print runs only while tracing, so it shows up on "
            "the first call and again when the shape changes from (3,) to (2,), but not on the "
            "second call with the same shape."
        ),
        source="""import tensorflow as tf

@tf.function
def process(x):
    print("Tracing! x.shape =", x.shape)  # runs only while tracing
    return x * 2
""",
        function="process",
        calls=("float32[3]", "float32[3]", "float32[2]"),
        article_claim=N_("Each new shape traces again; the same shape reuses the graph: 2 traces."),
        expect=Expectation(tracing_count=2, error_type="", warning_codes=("print-at-trace",)),
        fixed_by="tf-print",
    ),
    Example(
        slug="tf-print",
        tab="Console",
        title=N_("Fixed: tf.print runs on every call"),
        explanation=N_(
            "tf.print is a graph op, so it prints on every execution, not only while tracing. "
            "Watch the Console tab: all three calls print, yet the function still traces twice, "
            "once per shape."
        ),
        source="""import tensorflow as tf

@tf.function
def process(x):
    tf.print("running with x =", x)  # a graph op: runs on every call
    return x * 2
""",
        function="process",
        calls=("float32[3]", "float32[3]", "float32[2]"),
        article_claim=N_("tf.print() prints on every graph execution."),
        expect=Expectation(tracing_count=2, error_type="", no_warnings=True),
    ),
    Example(
        slug="scripted-snippet",
        title=N_("Script mode: the article's snippet, verbatim"),
        explanation=N_(
            "Leave the function picker on 'run as script' and the playground runs the whole "
            "file, calls included, and reports every tf.function it created with each call it "
            "received. This is the article's first tracing snippet pasted as is."
        ),
        source="""import tensorflow as tf

@tf.function
def process(x):
    print("Tracing! x.shape =", x.shape)
    return x * 2

result1 = process(tf.constant([1.0, 2.0, 3.0]))  # traces
result2 = process(tf.constant([4.0, 5.0, 6.0]))  # reuses the graph
result3 = process(tf.constant([1.0, 2.0]))       # new shape: traces again
""",
        function=None,
        article_claim=N_("Tracing! is printed for (3,) and (2,) only."),
        expect=Expectation(tracing_count=2, error_type="", warning_codes=("print-at-trace",)),
    ),
    Example(
        slug="python-literals",
        title=N_("Python values are part of the signature"),
        explanation=N_(
            "A Python int or float argument is traced as its value: 1 and 2.0 each get their own "
            "graph, and tf.constant(1) and tf.constant(2) share one int32 graph, while "
            "tf.constant(1.0) needs a float32 one. Five calls, four traces."
        ),
        source="""import tensorflow as tf

@tf.function
def double(a):
    return a + a

double(1)
double(2.0)
double(tf.constant(1))
double(tf.constant(2))
double(tf.constant(1.0))
""",
        function=None,
        article_claim=N_("The trace cache is keyed by input signature."),
        expect=Expectation(tracing_count=4, error_type="", warning_codes=("python-scalar-arg",)),
    ),
    Example(
        slug="python-scalar-arg",
        tab="Traces",
        title=N_("Pitfall: a changing Python number retraces every call"),
        explanation=N_(
            "n is a Python int, so each new value is a new signature and a new graph. The "
            "Traces tab shows the reason for every retrace: n: Python value 1 -> 2."
        ),
        source="""import tensorflow as tf

@tf.function
def scale(x, n):
    return x * n
""",
        function="scale",
        calls=("float32[4], 1", "float32[4], 2", "float32[4], 3"),
        article_claim=N_("Different inputs can make tf.function retrace."),
        expect=Expectation(tracing_count=3, error_type="", warning_codes=("python-scalar-arg",)),
        fixed_by="tensor-scalar-arg",
    ),
    Example(
        slug="tensor-scalar-arg",
        title=N_("Fixed: pass the number as a tensor"),
        explanation=N_("With n as a float32 scalar tensor, one graph serves every value of n."),
        source="""import tensorflow as tf

@tf.function
def scale(x, n):
    return x * n
""",
        function="scale",
        calls=("float32[4], float32[]", "float32[4], float32[]", "float32[4], float32[]"),
        article_claim=N_("Tensor arguments of the same shape and dtype share one graph."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True),
    ),
    Example(
        slug="input-signature",
        title=N_("input_signature with a dynamic batch dimension"),
        explanation=N_(
            "input_signature=[TensorSpec([None, 28, 28, 1])] fixes the signature up front. "
            "Batches of 1, 32 and 128 images all reuse the single graph traced for a None "
            "batch dimension."
        ),
        source="""import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec(shape=[None, 28, 28, 1], dtype=tf.float32)])
def predict(images):
    return tf.reduce_mean(images, axis=[1, 2, 3])
""",
        function="predict",
        calls=("float32[1,28,28,1]", "float32[32,28,28,1]", "float32[128,28,28,1]"),
        signature="float32[None,28,28,1]",
        article_claim=N_("These calls share one graph (the batch dimension is dynamic)."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True),
    ),
    Example(
        slug="signature-mismatch",
        title=N_("input_signature rejects a call that does not fit"),
        explanation=N_(
            "With an input_signature, a call of another dtype or rank is not traced: TF raises "
            "TypeError: Binding inputs to tf.function failed. The first call still runs."
        ),
        source="""import tensorflow as tf

def safe_fn(ids, temperature):
    return tf.nn.softmax(tf.cast(ids, tf.float32) / temperature)
""",
        function="safe_fn",
        calls=("int32[5], float32[]", "float32[5], float32[]"),
        signature="int32[None], float32[]",
        article_claim=N_("input_signature only allows the given shapes and rejects unexpected ones."),
        expect=Expectation(tracing_count=1, error_type="TypeError"),
    ),
    Example(
        slug="many-shapes",
        title=N_("Pitfall: every new shape is a new graph"),
        explanation=N_(
            "Four calls with shapes [1] to [4] give four traces by default. The playground flags "
            "the excessive retracing and suggests the input_signature that covers all calls."
        ),
        source="""import tensorflow as tf

@tf.function
def total(x):
    return tf.reduce_sum(x * x)
""",
        function="total",
        calls=("float32[1]", "float32[2]", "float32[3]", "float32[4]"),
        article_claim=N_("Many different shapes make tf.function build one graph per shape."),
        expect=Expectation(tracing_count=4, error_type="", warning_codes=("excessive-retracing",)),
        fixed_by="reduce-retracing-fixed",
    ),
    Example(
        slug="reduce-retracing-fixed",
        title=N_("Fixed: reduce_retracing generalises after one retrace"),
        explanation=N_(
            "With reduce_retracing=True (formerly experimental_relax_shapes), the second shape "
            "retraces once with a None dimension, and later shapes of the same rank reuse it: "
            "4 calls, 2 traces."
        ),
        source="""import tensorflow as tf

@tf.function
def total(x):
    return tf.reduce_sum(x * x)
""",
        function="total",
        calls=("float32[1]", "float32[2]", "float32[3]", "float32[4]"),
        reduce_retracing=True,
        article_claim=N_("reduce_retracing reduces the number of traces."),
        expect=Expectation(tracing_count=2, error_type="", no_warnings=True),
    ),
    Example(
        slug="relax-shapes-rank",
        tab="Traces",
        title=N_("Article vs TF 2.21: reduce_retracing over [3], [5], [7,3]"),
        explanation=N_(
            "The article says [5] reuses the graph traced for [3]. On TF 2.21 it does not: the "
            "first call traces (3,), the second retraces as (None,), and the rank-2 call traces "
            "a third graph with unknown rank. The Traces tab shows each generalisation."
        ),
        source="""import tensorflow as tf

@tf.function(experimental_relax_shapes=True)  # the old name of reduce_retracing
def flexible_fn(x):
    return tf.reduce_sum(x)

flexible_fn(tf.zeros([3]))     # traces
flexible_fn(tf.zeros([5]))     # article: reuses the graph
flexible_fn(tf.zeros([7, 3]))  # traces again (new rank)
""",
        function=None,
        article_claim=N_("[3] traces, [5] reuses the same graph, [7,3] retraces: 2 traces."),
        expect=Expectation(tracing_count=3, error_type=""),
    ),
    Example(
        slug="autograph-control-flow",
        tab="Graph",
        title=N_("AutoGraph: if, for and while"),
        explanation=N_(
            "A tensor condition in `if` becomes tf.cond and in `while` becomes tf.while_loop; a "
            "`for` over a Python range is unrolled at trace time. The Converted code tab shows "
            "ag__.if_stmt and ag__.while_stmt, and the Graph tab shows the StatelessIf and "
            "While ops with their bodies counted."
        ),
        source="""import tensorflow as tf

@tf.function
def autograph_demo(x):
    if tf.reduce_mean(x) > 0:      # tensor condition -> tf.cond
        result = x * 2
    else:
        result = x * -1
    for i in range(3):             # Python range -> unrolled 3 times
        result = result + tf.cast(i, tf.float32)
    while tf.reduce_sum(result) < 100:  # tensor condition -> tf.while_loop
        result = result + 1.0
    return result
""",
        function="autograph_demo",
        calls=("float32[4]",),
        article_claim=N_("if/while on tensors become tf.cond/tf.while_loop; range loops unroll."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True),
    ),
    Example(
        slug="to-code",
        title=N_("autograph.to_code on a plain Python function"),
        explanation=N_(
            "The function is not decorated; the playground wraps it in tf.function and shows "
            "tf.autograph.to_code, where the `if` on a tensor becomes ag__.if_stmt."
        ),
        source="""import tensorflow as tf

def my_function(x):
    if tf.reduce_mean(x) > 0:
        return x * 2
    else:
        return x * -1
""",
        function="my_function",
        calls=("float32[3]",),
        article_claim=N_("to_code shows the if replaced by tf.cond."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True),
    ),
    Example(
        slug="cond-branch-shapes",
        title=N_("Article vs TF 2.21: tf.cond branches with different shapes"),
        explanation=N_(
            "The article says branches returning shapes [10] and [5] raise ValueError. On TF 2.21 "
            "they run: tf.cond only needs the same structure and dtype, and the result's shape "
            "becomes (None,)."
        ),
        source="""import tensorflow as tf

@tf.function
def bad_branch(x):
    if tf.reduce_mean(x) > 0:
        return tf.zeros([10])
    else:
        return tf.zeros([5])
""",
        function="bad_branch",
        calls=("float32[3]",),
        article_claim=N_("ValueError: The two structures don't have the same nested structure."),
        expect=Expectation(tracing_count=1, error_type=""),
    ),
    Example(
        slug="loop-shape-change",
        title=N_("Pitfall: a loop variable that changes shape"),
        explanation=N_(
            "Inside a tensor-driven while loop, AutoGraph requires each loop variable to keep "
            "its shape. Growing `result` with tf.concat fails at trace time with a ValueError "
            "that names the variable."
        ),
        source="""import tensorflow as tf

@tf.function
def growing(n):
    i = tf.constant(0)
    result = tf.zeros([1])
    while i < n:
        result = tf.concat([result, [tf.cast(i, tf.float32)]], axis=0)
        i += 1
    return result
""",
        function="growing",
        calls=("int32[]",),
        article_claim=N_("Loop variables must keep their shape across iterations."),
        expect=Expectation(error_type="ValueError"),
        fixed_by="shape-invariants",
    ),
    Example(
        slug="shape-invariants",
        title=N_("Fixed: shape_invariants for a growing loop variable"),
        explanation=N_(
            "tf.while_loop with shape_invariants=[i.shape, TensorShape([None])] declares that "
            "result may grow, so the loop traces once and returns [0, 0, 1, 2, 3, 4]."
        ),
        source="""import tensorflow as tf

@tf.function
def dynamic_loop():
    i = tf.constant(0)
    result = tf.zeros([1])

    def cond(i, result):
        return i < 5

    def body(i, result):
        new_val = tf.expand_dims(tf.cast(i, tf.float32), 0)
        return i + 1, tf.concat([result, new_val], axis=0)

    _, final = tf.while_loop(cond, body, [i, result],
                             shape_invariants=[i.shape, tf.TensorShape([None])])
    return final
""",
        function="dynamic_loop",
        calls=("",),
        article_claim=N_("With shape_invariants the loop may change the shape."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True, output_contains="float32[6]"),
    ),
    Example(
        slug="side-effect-numpy",
        title=N_("Article vs TF 2.21: x.numpy() inside tf.function"),
        explanation=N_(
            "The article says collected.append(x.numpy()) runs once and collects one element. "
            "On TF 2.21, x is a symbolic tensor while tracing and .numpy() raises "
            "AttributeError: 'SymbolicTensor' object has no attribute 'numpy'."
        ),
        source="""import tensorflow as tf

collected = []

@tf.function
def side_effect_demo(x):
    collected.append(x.numpy())  # article: runs only once
    return x + 1

side_effect_demo(tf.constant(1.0))
side_effect_demo(tf.constant(2.0))
print(collected)
""",
        function=None,
        article_claim=N_("collected ends up with a single element."),
        expect=Expectation(
            error_type="AttributeError", warning_codes=("numpy-in-graph", "python-side-effect")
        ),
    ),
    Example(
        slug="side-effect-list",
        title=N_("Pitfall: Python side effects happen only while tracing"),
        explanation=N_(
            "Appending to a Python list inside tf.function happens once per trace, not once per "
            "call: after three calls with the same shape the list holds one symbolic tensor."
        ),
        source="""import tensorflow as tf

collected = []

@tf.function
def remember(x):
    collected.append(x)   # Python side effect: runs only while tracing
    return x + 1

for value in [1.0, 2.0, 3.0]:
    remember(tf.constant(value))
print("collected has", len(collected), "item(s)")
""",
        function=None,
        article_claim=N_("Python side effects do not happen when the graph runs."),
        expect=Expectation(
            tracing_count=1,
            error_type="",
            warning_codes=("python-side-effect",),
            output_contains="collected has 1 item(s)",
        ),
        fixed_by="tensor-array",
    ),
    Example(
        slug="tensor-array",
        title=N_("Fixed: collect values inside the graph with tf.TensorArray"),
        explanation=N_(
            "A tf.TensorArray is graph state, so it fills on every execution; return it "
            "instead of mutating a Python list."
        ),
        source="""import tensorflow as tf

@tf.function
def running_sums(x):
    out = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
    total = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0]):
        total += x[i]
        out = out.write(i, total)
    return out.stack()
""",
        function="running_sums",
        calls=("float32[5]", "float32[5]"),
        article_claim=N_("Keep state in TF objects rather than Python containers."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True),
    ),
    Example(
        slug="variable-in-function",
        title=N_("Pitfall: creating a tf.Variable inside tf.function"),
        explanation=N_(
            "The article says a new variable is created on every trace. On TF 2.21 the first "
            "call already fails: tf.function only supports singleton tf.Variables created on "
            "the first call, and this body creates one on every run."
        ),
        source="""import tensorflow as tf

@tf.function
def bad_variable():
    v = tf.Variable(0.0)  # created on every call
    v.assign_add(1.0)
    return v.read_value()
""",
        function="bad_variable",
        calls=("", ""),
        article_claim=N_("Each trace creates a new variable."),
        expect=Expectation(error_type="ValueError", warning_codes=("variable-in-function",)),
        fixed_by="variable-outside",
    ),
    Example(
        slug="variable-outside",
        title=N_("Fixed: create the variable once, outside"),
        explanation=N_("The variable lives outside the function; each call increments it."),
        source="""import tensorflow as tf

counter = tf.Variable(0.0)

@tf.function
def good_increment():
    counter.assign_add(1.0)
    return counter.read_value()
""",
        function="good_increment",
        calls=("", "", ""),
        article_claim=N_("Create variables outside the function and reuse them."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True, output_contains="3.0"),
    ),
    Example(
        slug="module-counter",
        title=N_("tf.Module owns its variables"),
        explanation=N_(
            "A tf.Module creates its variable in __init__, and its tf.function method uses it. "
            "The entry is the expression Counter().increment."
        ),
        source="""import tensorflow as tf

class Counter(tf.Module):
    def __init__(self):
        self.counter = tf.Variable(0.0)

    @tf.function
    def increment(self):
        self.counter.assign_add(1.0)
        return self.counter.read_value()
""",
        function="Counter().increment",
        calls=("", ""),
        article_claim=N_("c.increment() returns 1.0, then 2.0."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True, output_contains="2.0"),
    ),
    Example(
        slug="captured-global",
        title=N_("Pitfall: a Python global is frozen at trace time"),
        explanation=N_(
            "threshold is read while tracing and baked into the graph as a constant. Changing "
            "it afterwards does not change the result: 0.6 > threshold stays True."
        ),
        source="""import tensorflow as tf

threshold = 0.5

@tf.function
def check(x):
    return x > threshold  # frozen at 0.5 when traced

print(check(tf.constant(0.6)).numpy())   # True
threshold = 0.8
print(check(tf.constant(0.6)).numpy())   # still True: no retrace
""",
        function=None,
        article_claim=N_("After threshold = 0.8 the result is still True."),
        expect=Expectation(
            tracing_count=1, error_type="", warning_codes=("captured-global",), output_contains="True\nTrue"
        ),
        fixed_by="threshold-argument",
    ),
    Example(
        slug="threshold-argument",
        title=N_("Fixed: pass the threshold as a tensor"),
        explanation=N_("With threshold as an argument, the graph compares against the live value."),
        source="""import tensorflow as tf

@tf.function
def check_dynamic(x, threshold):
    return x > threshold
""",
        function="check_dynamic",
        calls=("float32[], float32[]", "float32[], float32[]"),
        article_claim=N_("check_dynamic(0.6, 0.8) is False."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True),
    ),
    Example(
        slug="run-eagerly",
        title=N_("Debugging with tf.config.run_functions_eagerly"),
        explanation=N_(
            "With run_functions_eagerly(True), tf.function runs the Python body eagerly, so "
            ".numpy() and print work like normal Python, and no graph is traced."
        ),
        source="""import tensorflow as tf

tf.config.run_functions_eagerly(True)

@tf.function
def debuggable_fn(x):
    print("x =", x.numpy())  # works: the function runs eagerly
    return x + 1

debuggable_fn(tf.constant(1.0))
tf.config.run_functions_eagerly(False)
""",
        function=None,
        article_claim=N_("With eager debugging on, print and .numpy() work inside the function."),
        expect=Expectation(tracing_count=0, error_type="", output_contains="x = 1.0"),
    ),
    Example(
        slug="dead-matmuls",
        tab="Graph",
        title=N_("Article vs TF 2.21: the '10-50x faster' benchmark"),
        explanation=N_(
            "The article's benchmark runs 100 matmuls whose results are thrown away. In the "
            "graph, Grappler prunes the 99 dead ones and folds what is left, so most of the "
            "'speedup' is dead-code elimination, not saved Python overhead. Compare the op "
            "counts before and after Grappler in the Graph tab."
        ),
        source="""import tensorflow as tf

@tf.function
def graph_matmul(a, b):
    for _ in range(100):      # unrolled: 100 MatMul ops
        c = tf.matmul(a, b)   # only the last result is used
    return c
""",
        function="graph_matmul",
        calls=("float32[64,64], float32[64,64]",),
        passes=True,
        article_claim=N_("Graph mode is 10-50x faster because it avoids Python-C++ switches."),
        expect=Expectation(
            tracing_count=1, error_type="", optimized_ops_at_most=5, warning_codes=("python-loop-unrolled",)
        ),
    ),
    Example(
        slug="article-benchmark",
        tab="Graph",
        title=N_("Article vs TF 2.21: the benchmark, verbatim"),
        explanation=N_(
            "The article's own benchmark, run as a script. graph_matmul returns nothing and "
            "matmul has no side effect, so the whole graph is dead code: the Graph tab shows "
            "all of its ops pruned, and the printed `Graph` time is the cost of running nothing "
            "(plus the first call's tracing), not of 100 matmuls without Python overhead."
        ),
        source="""import tensorflow as tf
import time

def eager_matmul(n=1000):
    a = tf.random.normal([n, n])
    b = tf.random.normal([n, n])
    start = time.time()
    for _ in range(100):
        c = tf.matmul(a, b)
    return time.time() - start

@tf.function
def graph_matmul(n=1000):
    a = tf.random.normal([n, n])
    b = tf.random.normal([n, n])
    for _ in range(100):
        c = tf.matmul(a, b)

eager_time = eager_matmul()
start = time.time()
graph_matmul()
graph_time = time.time() - start

print(f"Eager: {eager_time:.3f}s, Graph: {graph_time:.3f}s")
""",
        function=None,
        article_claim=N_("Typical output: Eager: 0.452s, Graph: 0.038s, a 10-50x speedup."),
        expect=Expectation(
            tracing_count=1,
            error_type="",
            optimized_ops_at_most=0,
            output_contains="Eager: ",
            warning_codes=("python-loop-unrolled",),
        ),
    ),
    Example(
        slug="xla",
        tab="Graph",
        title=N_("XLA: jit_compile=True and its HLO"),
        explanation=N_(
            "jit_compile=True compiles the function with XLA. The Graph tab shows the HLO "
            "module; turn on timing to see that on a small CPU workload XLA is often no faster "
            "than the plain graph."
        ),
        source="""import tensorflow as tf

@tf.function(jit_compile=True)
def dense(x, w):
    return tf.nn.relu(tf.matmul(x, w))
""",
        function="dense",
        calls=("float32[32,64], float32[64,64]",),
        jit_compile=True,
        passes=True,
        article_claim=N_("XLA fuses ops; the gain depends on the workload."),
        expect=Expectation(tracing_count=1, error_type="", no_warnings=True),
    ),
    Example(
        slug="xla-unsupported",
        tab="Graph",
        title=N_("XLA cannot take every op: named before it compiles"),
        explanation=N_(
            "XLA compiles numbers, not strings: tf.strings ops have no XLA kernel, so "
            "jit_compile=True fails at the first call. The Graph tab names every op XLA cannot "
            "take, with its line, read from XLA's kernels before anything compiles; XLA's own "
            "error names only the first it meets. Move such ops out of the compiled function."
        ),
        source="""import tensorflow as tf

@tf.function(jit_compile=True)
def describe(x):
    text = tf.strings.format("x = {}", x)
    size = tf.strings.length(text)
    return tf.cast(size, tf.float32) + tf.reduce_sum(x)
""",
        function="describe",
        calls=("float32[3]",),
        jit_compile=True,
        article_claim=N_("XLA fuses ops; the gain depends on the workload."),
        expect=Expectation(tracing_count=1, error_type="InvalidArgumentError"),
    ),
    Example(
        slug="xla-numbers",
        tab="Timing",
        title=N_("Eager, graph and XLA: the same numbers?"),
        explanation=N_(
            "Compare outputs runs the call again eagerly, as a graph and under XLA, and compares "
            "every element. Graph and eager agree exactly here; XLA's CPU kernels approximate "
            "tanh and add a sum up in their own order, so at a tolerance of 1e-7 XLA's tanh "
            "differs from eager's by a few units in float32's last place, and the sum agrees "
            "within the tolerance relative to its size."
        ),
        source="""import tensorflow as tf

@tf.function
def squash(x):
    return tf.reduce_sum(tf.sigmoid(x * 3.0)), tf.tanh(x)
""",
        function="squash",
        calls=("float32[4096]",),
        numbers=True,
        tolerance=1e-7,
        article_claim=N_("XLA fuses ops; the gain depends on the workload."),
        expect=Expectation(tracing_count=1, error_type=""),
    ),
    Example(
        slug="len-on-tensor",
        title=N_("Pitfall: len() and Python shapes are fixed at trace time"),
        explanation=N_(
            "len(x) is a Python int taken while tracing. With a dynamic (None) batch dimension "
            "it cannot be known, and TF raises. tf.shape(x)[0] computes it in the graph."
        ),
        source="""import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def mean_by_len(x):
    return tf.reduce_sum(x) / len(x)
""",
        function="mean_by_len",
        calls=("float32[4]",),
        signature="float32[None]",
        article_claim=N_("len() on a tensor returns the trace-time value."),
        expect=Expectation(error_type="TypeError", warning_codes=("python-control-flow-on-tensor-shape",)),
    ),
]
