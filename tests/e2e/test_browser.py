"""Real-browser tests: Debian's Chromium, driven by Playwright, on a real `streamlit run`."""

from __future__ import annotations

import pathlib
import re

import pytest
from browser_support import (  # noqa: F401 - fixtures
    EDITOR,
    IDLE,
    RUN_TIMEOUT_MS,
    SHOTS,
    USES_CHROMIUM,
    chromium_page,
    close_tooltip,
    editor,
    editor_text,
    expect_editor_text,
    leave_editor,
    open_options,
    open_panel,
    page,
    run_and_wait,
    server,
    traces_value,
    turn_on,
    type_code,
    wait_idle,
)

pytestmark = USES_CHROMIUM
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=20_000)  # the shared 2-core machine draws charts slowly under load


NEW_SOURCE = """import tensorflow as tf

@tf.function
def scale(x, factor):
    if factor > 1:
        x = x * factor
    return tf.reduce_sum(x)
"""


def gutter_marks(page, kind: str = "error"):
    return editor(page).locator(f".ace_gutter-cell.ace_{kind}")


def axis_ticks(page) -> list[dict]:  # type: ignore[no-untyped-def]
    """Every drawn axis of every chart in the page: its title and its tick labels."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot =>
             ['x', 'y'].flatMap(axis => [...plot.querySelectorAll(`.${axis}axislayer-above`)].map(layer => {
               const title = plot.querySelector(`.g-${axis}title`);
               return {title: title ? title.textContent : '',
                       ticks: [...layer.querySelectorAll('text')].map(t => t.textContent)};
             })))"""
    )


def open_tab(page, label: str) -> None:
    page.get_by_role("tab", name=label).click()


def test_retracing_example_runs_and_renders_charts(page, server) -> None:
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    expect_editor_text(page, r"def process\(x\)")
    run_and_wait(page)
    assert traces_value(page) == "2"
    open_tab(page, "Traces")
    chart = page.get_by_test_id("stPlotlyChart").first
    expect(chart.locator(".main-svg").first).to_be_visible()
    page.screenshot(path=str(SHOTS / "retracing_traces.png"), full_page=True)
    open_tab(page, "Converted code")
    expect(page.locator(".lm-pane").filter(has_text="ag__").first).to_be_visible()
    open_tab(page, "Graph")
    expect(page.get_by_test_id("stGraphVizChart").first).to_be_visible()
    page.screenshot(path=str(SHOTS / "retracing_graph.png"), full_page=True)
    open_tab(page, "Traces")
    page.set_viewport_size({"width": 1500, "height": 1300})
    page.screenshot(path=str(SHOTS / "readme.png"))


def test_type_new_function_and_plan(page, server) -> None:
    page.goto(server)
    wait_idle(page)
    expect_editor_text(page, "def ")
    type_code(page, NEW_SOURCE)
    leave_editor(page)
    expect(page.locator(".st-key-function").get_by_role("combobox")).to_have_value(re.compile("^scale"))
    page.locator(".st-key-calls textarea").fill(
        "float32[4], factor=2\nfloat32[4], factor=3\nfloat32[4], factor=3"
    )
    page.locator(".st-key-calls textarea").press("Control+Enter")
    wait_idle(page)
    # Ctrl+Enter in the editor runs the code.
    editor(page).locator(".ace_content").click()
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text(re.compile(r"^Run 1 · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_idle(page)
    assert traces_value(page) == "2"  # factor 2 -> 3 retraces, the repeat reuses
    open_tab(page, "Traces")
    expect(page.get_by_test_id("stPlotlyChart").first.locator(".main-svg").first).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    # The URL follows the state: the code is in it, so a reload restores the editor.
    expect(page).to_have_url(re.compile(r"[?&]code="))
    page.reload()
    wait_idle(page)
    expect_editor_text(page, r"def scale\(x, factor\)")
    page.screenshot(path=str(SHOTS / "new_function.png"), full_page=True)


BROKEN = """import tensorflow as tf

@tf.function
def bad(x):
    y = x.numpy()
    return y
"""


def test_timing_and_problems_tabs(page, server) -> None:
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    expect_editor_text(page, "def process")
    open_options(page)
    turn_on(page, "timing")
    page.locator(".st-key-sweep input").fill("x[0]=16,256,4096")
    page.locator(".st-key-sweep input").press("Enter")
    wait_idle(page)
    run_and_wait(page)
    open_tab(page, "Timing")
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts.filter(has_text="Steady-state").first.locator(".main-svg").first).to_be_visible()
    expect(charts.filter(has_text="First call").first).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Graph vs eager")).to_be_visible()
    sweep = charts.filter(has_text="Time per call vs x dim 0").first
    expect(sweep.locator(".main-svg").first).to_be_visible()
    expect(sweep).to_contain_text("3 traces")  # each size retraced the one graph instance
    timed = [axis for axis in axis_ticks(page) if re.search(r"time|µs|\bms\b", axis["title"], re.I)]
    assert len(timed) >= 3, timed  # steady state, first call, the sweep
    for axis in timed:  # a log axis of plotly's own would read "2 3 4 ... 9" between decades
        assert axis["ticks"] and all(re.search(r"\d ?(ns|µs|ms|s)$", t) for t in axis["ticks"]), axis
    page.screenshot(path=str(SHOTS / "timing.png"), full_page=True)

    type_code(page, BROKEN)
    leave_editor(page)
    run_and_wait(page, number=2)
    open_tab(page, "Problems")
    marked = page.locator(".problem-source .problem-line")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text("x.numpy()")
    page.screenshot(path=str(SHOTS / "problems.png"), full_page=True)


MISSING_COLON = """import tensorflow as tf

@tf.function
def f(x)
    return x + 1
"""


def test_ctrl_enter_runs_and_the_gutter_marks_error_lines(page, server) -> None:
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    assert not gutter_marks(page).count()
    # A missing colon: its line (4) is marked in the gutter, with the message on hover.
    type_code(page, MISSING_COLON)
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text(re.compile(r"^Run 1 · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_idle(page)
    marks = gutter_marks(page)
    expect(marks).to_have_count(1)
    expect(marks).to_have_text("4")
    marks.hover()
    expect(editor(page).locator(".ace_tooltip")).to_contain_text("SyntaxError")
    # A runtime error inside the function: x.numpy() on line 5; the pitfall is marked there too.
    type_code(page, BROKEN)
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text(re.compile(r"^Run 2 · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_idle(page)
    expect(gutter_marks(page)).to_have_text("5")
    gutter_marks(page).hover()
    expect(editor(page).locator(".ace_tooltip")).to_contain_text("AttributeError")
    page.screenshot(path=str(SHOTS / "editor_gutter.png"), full_page=True)
    # A mark's text comes from the user's code (an exception's message): Ace, in the page
    # itself, shows it as text, never as markup.
    hostile = '<img src=x onerror="window.__marked = 1">ValueError'
    editor(page).locator(".ace_editor").evaluate(
        "(el, text) => el.env.editor.session.setAnnotations([{row: 4, column: 0, type: 'error', text}])",
        hostile,
    )
    close_tooltip(page)
    gutter_marks(page).hover()
    expect(editor(page).locator(".ace_tooltip:visible")).to_contain_text(hostile)
    assert page.evaluate("() => window.__marked") is None
    # A gallery pick replaces the editor's text.
    page.locator(".st-key-example").get_by_role("combobox").click()
    page.keyboard.type("tf-print")  # the list is long (the article's order): filter, as a person does
    page.get_by_role("option", name=re.compile(r"\(tf-print\)")).click()
    wait_idle(page)
    expect_editor_text(page, "tf.print")
    assert not gutter_marks(page).count()


def test_editor_loads_with_everything_off_localhost_blocked(page, server) -> None:
    blocked: list[str] = []

    def only_local(route) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    expect_editor_text(page, r"def process\(x\)")
    editor(page).locator(".ace_content").click()
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text(re.compile(r"^Run 1 · TensorFlow"))).to_be_visible(timeout=RUN_TIMEOUT_MS)
    assert blocked == [], blocked  # Ace and its font come from this server
    # Ace's keys that load an extension on first use find it here too: Ctrl+F, its search box.
    editor(page).locator(".ace_content").click()
    page.keyboard.press("Control+F")
    expect(editor(page).locator(".ace_search")).to_be_visible()


def test_an_editor_that_cannot_load_in_the_browser_says_so(page, server) -> None:
    """Ace's script refused (a proxy, an extension): the box names the way out, which works."""
    page.route("**/editor/ace-*/ace.js", lambda route: route.abort())
    page.goto(f"{server}/?example=retracing")
    box = page.locator(".st-key-source_box")
    expect(box).to_contain_text(
        "The code editor could not load. Switch on the Plain text box below.", timeout=RUN_TIMEOUT_MS
    )
    page.locator(".st-key-plain_editor label").click()
    expect(page.locator(".st-key-source textarea")).to_have_value(re.compile(r"def process\(x\)"))


def test_plain_text_box_toggle_keeps_the_code(page, server) -> None:
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    page.locator(".st-key-plain_editor label").click()
    expect(page.locator(".st-key-source textarea")).to_have_value(re.compile(r"def process\(x\)"))
    page.locator(".st-key-source textarea").fill(NEW_SOURCE)
    page.locator(".st-key-source textarea").press("Control+Enter")
    page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_MS)
    page.locator(".st-key-plain_editor label").click()
    wait_idle(page)
    expect_editor_text(page, r"def scale")


def test_open_a_notebook_into_the_editor_and_download_the_run_as_one(page, server, tmp_path) -> None:
    import json

    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": src}
        for src in (
            "!pip install tensorflow\nimport tensorflow as tf",
            "@tf.function\ndef twice(x):\n    return x * 2",
        )
    ]
    path = tmp_path / "demo.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    open_panel(page, "open_panel")  # the file opener is folded until asked for
    page.locator(".st-key-open_file input[type=file]").set_input_files(str(path))
    expect(page.get_by_text(re.compile(r"Opened demo\.ipynb"))).to_be_visible()
    expect(page.get_by_text("!pip install tensorflow")).to_be_visible()
    wait_idle(page)
    expect_editor_text(page, r"def twice\(x\)")
    assert "!pip" not in editor_text(page)
    run_and_wait(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download as a Jupyter notebook").click()
    notebook = json.loads(pathlib.Path(download.value.path()).read_text())
    sources = ["".join(c["source"]) for c in notebook["cells"]]
    assert any("experimental_get_tracing_count" in s for s in sources)
    assert any("def twice" in s for s in sources)


def test_the_file_openers_note_is_in_the_pages_language(page, server, tmp_path) -> None:
    """The opener's callback runs before the page's run sets its language: it sets it itself."""
    path = tmp_path / "demo.py"
    path.write_text("import tensorflow as tf\n\n@tf.function\ndef twice(x):\n    return x * 2\n")
    page.goto(f"{server}/?example=retracing&lang=zh")
    wait_idle(page)
    open_panel(page, "open_panel")
    page.locator(".st-key-open_file input[type=file]").set_input_files(str(path))
    expect(page.get_by_text("已打开 demo.py。")).to_be_visible()


# A line of exactly 80 characters: what a code pane must show whole at 1400 px (issue 27).
LONG_LINE = "    return tf.reduce_sum(x * 2.0) + tf.reduce_max(x)  # 80 characters, all shown"


def test_run_is_on_the_first_screen_and_the_code_gets_the_pages_width(server) -> None:
    """At 1400x900: Run without scrolling, the source pane of the code view shows an
    80-character line unclipped, and a Run keeps the editor (its element is not re-created)."""
    from playground.contract import share_link

    assert len(LONG_LINE) == 80
    source = f"import tensorflow as tf\n\n@tf.function\ndef wide(x):\n{LONG_LINE}\n"
    link = share_link.url(
        server + "/",
        share_link.input_params(
            source=source,
            function="wide",
            calls="float32[3]",
            values={},
        ),
    )
    with chromium_page(1400, 900) as page:
        page.goto(link)
        wait_idle(page)
        run = page.locator(".st-key-run button").bounding_box()
        assert run is not None and run["y"] >= 0 and run["y"] + run["height"] <= 900, run
        ace = page.locator(f"{EDITOR} .ace_editor").element_handle()
        ace.evaluate("element => { element.env.editor.__beforeRun = true; }")
        run_and_wait(page)
        assert ace.evaluate("element => element.isConnected && element.env.editor.__beforeRun === true")
        pane = page.locator(".lm-wide .lm-source")
        expect(pane).to_be_visible()
        assert LONG_LINE.strip() in pane.inner_text()
        scroll, client = pane.evaluate("element => [element.scrollWidth, element.clientWidth]")
        assert scroll == client, (scroll, client)
        page.screenshot(path=str(SHOTS / "first-screen-1400x900.png"))


def widget_keys(payloads: list) -> set[str]:
    """The user keys of the widgets that these websocket frames (ForwardMsgs) draw."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    found = set()
    for payload in payloads:
        if not isinstance(payload, bytes):
            continue
        message = ForwardMsg()
        message.ParseFromString(payload)
        if message.WhichOneof("type") != "delta" or message.delta.WhichOneof("type") != "new_element":
            continue
        element = message.delta.new_element
        widget_id = getattr(getattr(element, element.WhichOneof("type")), "id", "")
        if widget_id.startswith("$$ID-"):
            found.add(widget_id.rsplit("-", 1)[-1])
    return found


def test_a_run_redraws_its_fragment_only_and_hands_the_editor_its_marks(page, server) -> None:
    """Pressing Run reruns the Run-and-results fragment: the inputs are not sent again, the
    editor (outside it) still gets the run's gutter marks, and the code view follows the tabs."""
    from playground.ui import keys

    frames: list = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    assert {keys.CALLS, keys.EXAMPLE, keys.RUN} <= widget_keys(frames)  # a page run draws all
    type_code(page, BROKEN)
    leave_editor(page)  # the page reruns with the new text; Run below is the fragment's alone
    frames.clear()
    run_and_wait(page)
    drawn = widget_keys(frames)
    assert {keys.RUN, keys.DOWNLOAD_NOTEBOOK} <= drawn, drawn  # the fragment: Run and results
    assert not drawn & {keys.CALLS, keys.EXAMPLE, keys.FUNCTION, keys.OPEN_FILE}, drawn
    expect(gutter_marks(page)).to_have_text("5")  # handed over by the fragment, not a redraw
    gutter_marks(page).hover()
    expect(editor(page).locator(".ace_tooltip")).to_contain_text("AttributeError")
    # An edit drops the report's marks (the component's own marks are [] before and after it, so
    # this checks the pushed marks do not outlive their code); a second Run hands them over again.
    type_code(page, NEW_SOURCE)
    leave_editor(page)
    expect(gutter_marks(page)).to_have_count(0)
    type_code(page, BROKEN)
    leave_editor(page)
    run_and_wait(page, 2)
    expect(gutter_marks(page)).to_have_text("5")
    expect(page.get_by_role("tab", name="Problems")).to_have_attribute("aria-selected", "true")  # the error
    open_tab(page, "Converted code")
    expect(page.locator(".lm-wide")).to_have_count(1)
    open_tab(page, "Traces")
    wait_idle(page)
    expect(page.locator(".lm-wide")).to_have_count(0)  # the page-wide slot empties with its tab
    open_tab(page, "Converted code")
    wait_idle(page)
    expect(page.locator(".lm-wide")).to_have_count(1)


def test_the_folded_options_open_on_demand_and_stay_open_while_their_title_changes(page, server) -> None:
    """Folded, the options draw nothing inside; opened, each toggle renames the panel (its title
    names the settings that differ from TF's defaults), and a new title must not fold it."""
    page.goto(f"{server}/?example=retracing")
    wait_idle(page)
    panel = page.locator(".st-key-options_panel details")
    assert panel.get_attribute("open") is None and not page.locator(".st-key-jit_compile").count()
    open_options(page)
    for title in ("Options: XLA", "Options"):
        page.locator(".st-key-jit_compile label").click()
        wait_idle(page)
        expect(page.locator(".st-key-options_panel summary")).to_have_text(re.compile(rf"{title}$"))
        assert panel.get_attribute("open") is not None, title
        expect(page.locator(".st-key-jit_compile")).to_be_visible()
