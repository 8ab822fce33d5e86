"""The notebook magics in a real Jupyter kernel (nbclient driving ipykernel): `%load_ext
playground`, %%tf_playground in script and entry mode, the display's data, the kernel left as a
plain one, %tf_playground_explain, a bad flag, and a differential check: on a subset of
tests/integration/differential's snippets the magic tells the story that `python file.py` tells.

One notebook runs once for the module (a kernel and TensorFlow start once); each test reads the
outputs of its own cells.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
import repo_paths
from nbclient import NotebookClient

sys.path.insert(0, str(repo_paths.DIFFERENTIAL))
from browser_support import chromium_page
from harness import SNIPPETS, Story, plain_environment, run_plain, story_of

from playground.jupyter.view import EXPLAIN_MIME, REPORT_MIME

ROOT = repo_paths.ROOT

RETRACING = """import tensorflow as tf

@tf.function
def scale(x, n):
    print("tracing scale", x.shape, n)
    return x * n

for size in (2, 3, 3):
    scale(tf.ones([size]), 2)
scale(tf.ones([3]), 3)
"""

ENTRY = """def offset(x):
    return x + 1
"""

# A plain cell after the magics: its tf.function must trace as in a fresh Python.
PLAIN = """import tensorflow as tf

@tf.function
def shift(x, n):
    print("tracing shift", x.shape, n)
    return x + n

for size in (4, 4, 5):
    shift(tf.zeros([size]), 1)
shift(tf.zeros([5]), 2)
print("shift traced", shift.experimental_get_tracing_count())
"""

KERNEL_STATE = """import json
from tensorflow.python.eager.polymorphic_function.polymorphic_function import Function
print(json.dumps({"call": f"{Function.__call__.__module__}.{Function.__call__.__qualname__}",
                  "init": f"{Function.__init__.__module__}.{Function.__init__.__qualname__}",
                  "scale": scale.experimental_get_tracing_count()}))
"""

# A cell that trains with Keras, watched (trace mode): Keras's own train function is reported,
# its count equal to TF's object's, read by the cell itself.
FIT = """import gc, json
import numpy as np
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
for rows in (32, 40):
    model.fit(np.ones((rows, 3)), np.ones((rows, 1)), batch_size=16, verbose=0)
print(json.dumps({f._name: f.experimental_get_tracing_count() for f in gc.get_objects()
                  if isinstance(f, tf.types.experimental.PolymorphicFunction)
                  and f._name == "multi_step_on_iterator"}))
"""

# Snippets of tests/integration/differential that leave the process as they found it (no runtime
# configuration, no run_functions_eagerly): a notebook runs them one after another.
SUBSET = [
    "01_cf_tracing_visits_both_branches",
    "22_dbg_print_vs_tf_print",
    "28_eh_trace_time_type_error_uncaught",
    "41_pf_tracing_count",
    "44_pf_python_side_effects",
    "47_pf_reduce_retracing",
    "57_guide_python_literal_retracing",
]

CELLS: list[tuple[str, str, list[str]]] = [
    ("load", "%load_ext playground", []),
    ("retracing", "%%tf_playground\n" + RETRACING, []),
    (
        "entry",
        '%%tf_playground --function offset --call "float32[3]" --call "float32[4]" '
        "--reduce-retracing --lang zh\n" + ENTRY,
        [],
    ),
    (
        "compare",
        '%%tf_playground --compare "signature=float32[None]" --function offset '
        '--call "float32[3]" --call "float32[4]"\n' + ENTRY,
        [],
    ),
    ("compare-tf", "%%tf_playground --compare tf=2.15.1\n" + ENTRY, ["raises-exception"]),
    ("plain", PLAIN, []),
    ("kernel", KERNEL_STATE, []),
    ("explain", "%tf_playground_explain scale", []),
    ("bad-flag", '%%tf_playground --function offset --call "floot32[3]"\n' + ENTRY, ["raises-exception"]),
    ("help", "%%tf_playground -h\npass\n", []),
    ("watch", "%%tf_playground_watch --html fit.html\n" + FIT, []),
] + [(name, "%%tf_playground\n" + (SNIPPETS / f"{name}.py").read_text(), []) for name in SUBSET]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    """Every cell's outputs by name, from one run of the notebook in a fresh kernel."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(source, metadata={"name": name, "tags": tags})
        for name, source, tags in CELLS
    ]
    # The plain runs' environment (oneDNN off, as the sandbox), with the checkout importable.
    environment = plain_environment(PYTHONPATH=str(ROOT))
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environment)
    try:
        NotebookClient(
            notebook,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(tmp_path_factory.mktemp("nb"))}},
        ).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return {cell.metadata["name"]: cell.outputs for cell in notebook.cells}


def data(cell_outputs: list[dict], mime: str = REPORT_MIME) -> Any:
    found = [o["data"][mime] for o in cell_outputs if mime in o.get("data", {})]
    assert len(found) == 1, cell_outputs
    return found[0]


def printed(cell_outputs: list[dict]) -> str:
    return "".join(o["text"] for o in cell_outputs if o["output_type"] == "stream")


def told(story: Story) -> tuple:
    """What must agree: the outcome, the printed lines, each function's tracing count."""
    return story.outcome, story.lines, story.counts


def plain_story(tmp_path: Path, name: str, source: str) -> Story:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return run_plain(path)


def test_the_magic_shows_each_call_with_its_reason(outputs) -> None:
    report = data(outputs["retracing"])
    [scale] = report["functions"]
    assert scale["name"] == "scale" and scale["tracing_count"] == 3
    assert [(c["retraced"], c["reason"], c["tracing_count"]) for c in scale["calls"]] == [
        (True, "first call", 1),
        (True, "x: shape (2,) -> (3,)", 2),
        (False, None, 2),
        (True, "n: Python value 2 -> 3", 3),
    ]
    shown = next(o["data"] for o in outputs["retracing"] if REPORT_MIME in o.get("data", {}))
    page = shown["text/html"]
    assert '<table class="tfp-calls">' in page and "x: shape (2,) -&gt; (3,)" in page
    assert "tfp-chart" in page and "lm-converted" in page  # the chart, the line map
    assert "print-at-trace" in page  # a pitfall, with its fix
    assert "TRACED" in shown["text/plain"]  # the CLI's text, as fallback
    # The progress line (this first run imports TF: over a second) ends empty; nothing else.
    assert [o for o in outputs["retracing"] if o.get("data", {}).get("text/plain") != ""] == [
        next(o for o in outputs["retracing"] if REPORT_MIME in o.get("data", {}))
    ]


def _page_of(cell_outputs: list[dict]) -> str:
    shown = next(o["data"] for o in cell_outputs if REPORT_MIME in o.get("data", {}))
    return "<!DOCTYPE html><html><body>" + shown["text/html"] + "</body></html>"


@pytest.mark.browser
def test_a_browser_draws_the_charts_and_the_line_map(outputs) -> None:
    """The output's own script loads plotly.js (here served locally: the CDN is unreachable)."""
    from plotly.offline import get_plotlyjs

    script = get_plotlyjs()
    with chromium_page(1400, 900) as page:
        page.route(
            "https://cdn.plot.ly/**",
            lambda route: route.fulfill(body=script, content_type="application/javascript"),
        )
        page.set_content(_page_of(outputs["retracing"]))
        page.wait_for_selector(".tfp-chart .main-svg", timeout=20_000)
        assert page.locator(".tfp-chart .main-svg").count() >= 1
        rows = page.locator(".lm-source .lm-row").all_inner_texts()
        assert any('print("tracing scale", x.shape, n)' in row for row in rows), rows


@pytest.mark.browser
def test_a_page_without_plotly_js_keeps_the_tables_and_says_why(outputs) -> None:
    with chromium_page(1400, 900) as page:
        page.route("https://cdn.plot.ly/**", lambda route: route.abort())
        page.set_content(_page_of(outputs["retracing"]))
        page.wait_for_timeout(1000)
        assert page.locator(".tfp-chart .main-svg").count() == 0
        assert "cdn.plot.ly" in page.locator(".tfp-chart").first.inner_text()
        assert page.locator("table.tfp-calls tr").count() == 5  # header and 4 calls


def test_the_magic_tells_the_story_plain_python_tells(outputs, tmp_path) -> None:
    assert told(story_of(data(outputs["retracing"]))) == told(plain_story(tmp_path, "retracing", RETRACING))


def test_entry_mode_runs_the_plan_in_the_chosen_language(outputs) -> None:
    report = data(outputs["entry"])
    [offset] = report["functions"]
    assert [c["tracing_count"] for c in offset["calls"]] == [1, 2]
    assert "reduce_retracing" in offset["calls"][1]["reason"]
    text = next(o["data"]["text/plain"] for o in outputs["entry"] if REPORT_MIME in o.get("data", {}))
    assert "原因" in text  # --lang zh


def test_compare_runs_both_sides_in_the_kernel(outputs) -> None:
    sides = data(outputs["compare"])["compare"]
    assert [sides[side]["functions"][0]["tracing_count"] for side in ("a", "b")] == [2, 1]
    assert any(d["kind"] == "tracing_count" for d in sides["differences"]), sides["differences"]


def test_comparing_versions_needs_a_server(outputs) -> None:
    errors = "".join(o["text"] for o in outputs["compare-tf"] if o.get("name") == "stderr")
    assert "UsageError: --compare tf=2.15.1" in errors and "--server URL" in errors


def test_a_plain_cell_afterwards_traces_as_in_a_fresh_python(outputs, tmp_path) -> None:
    story = plain_story(tmp_path, "plain", PLAIN)
    assert story.outcome == "ok" and story.counts == {"shift": 3}
    assert printed(outputs["plain"]).splitlines() == story.lines


def test_the_hooks_are_gone_and_the_cells_functions_stay_the_users(outputs) -> None:
    state = json.loads(printed(outputs["kernel"]))
    module = "tensorflow.python.eager.polymorphic_function.polymorphic_function"
    assert state["call"] == f"{module}.Function.__call__"
    assert state["init"] == f"{module}.Function.__init__"
    assert state["scale"] == 3  # the magic's cell defined it: traced as a plain cell would


def test_explain_reads_an_existing_functions_traces_and_reasons(outputs) -> None:
    explained = data(outputs["explain"], EXPLAIN_MIME)
    assert explained["tracing_count"] == 3
    assert [t["reason"] for t in explained["traces"]] == [
        "first call",
        "x: shape (2,) -> (3,)",
        "n: Python value 2 -> 3",
    ]


def test_a_watched_cell_reports_the_functions_keras_made(outputs) -> None:
    counts = json.loads(printed(outputs["watch"]).strip().splitlines()[-1])  # the cell ran as a plain one
    report = data(outputs["watch"])
    (train,) = [f for f in report["library_functions"] if f["name"] == "multi_step_on_iterator"]
    assert train["maker"] == "keras: TensorFlowTrainer.make_train_function"
    assert train["tracing_count"] == counts["multi_step_on_iterator"] == 2
    assert [c["line"] for c in train["calls"]] == [9, 9]  # the fit, in the cell
    assert "iterator[0]: shape (16, 3) -> (None, 3)" in train["calls"][1]["reason"]
    assert [w["function"] for w in report["warnings"]] == ["multi_step_on_iterator"]
    html = next(o["data"]["text/html"] for o in outputs["watch"] if "text/html" in o.get("data", {}))
    assert html.startswith("<iframe srcdoc=") and "keras: TensorFlowTrainer.make_train_function" in html


def test_a_bad_flag_is_one_line_naming_it(outputs) -> None:
    # IPython prints a UsageError as one line on stderr, without a traceback.
    errors = [o["text"] for o in outputs["bad-flag"] if o.get("name") == "stderr"]
    assert errors == ["UsageError: unknown dtype 'floot32' in 'floot32[3]' (did you mean float32?)\n"], (
        outputs["bad-flag"]
    )


def test_help_lists_the_clis_flags(outputs) -> None:
    text = printed(outputs["help"])
    assert "%%tf_playground" in text and "--reduce-retracing" in text and "--server" in text


@pytest.mark.parametrize("name", SUBSET)
def test_differential_snippet_through_the_magic(outputs, name: str) -> None:
    plain = run_plain(SNIPPETS / f"{name}.py")
    assert told(story_of(data(outputs[name]))) == told(plain), plain.raw
