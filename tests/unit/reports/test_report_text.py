"""A report's strings are text everywhere (playground/reports/safe_text.py and its users): a Report
whose every string is hostile markup (tests/support/hostile_report.py; the host's own decoder accepts
it) goes through the notebook builder, the CLI's renderers, the Jupyter view and the page (AppTest),
and none of its strings comes out as markup, code, a link or a terminal command.
tests/e2e/test_browser_hostile.py shows the same in Chromium."""

from __future__ import annotations

import ast
import dataclasses
import html.parser
import json
import re

import hostile_report
import nbformat
import pytest
import repo_paths

from playground.cli import render_compare, render_text
from playground.contract.decode import decode
from playground.contract.job import Report, job_from_json
from playground.contract.protocol import REPORT_BOUNDS
from playground.jupyter.view import ComparisonView, ReportView
from playground.reports import compare, notebook
from playground.reports.safe_text import (
    code_span,
    graph_dot,
    markdown_literal,
    plotly_text,
    terminal_text,
    unescape_markdown,
)

markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py reads the markdown back")

DATA = repo_paths.DATA
PORT = 9  # nothing listens: these tests read what would be fetched, the browser test fetches
REPORT = hostile_report.report(PORT)
JOB = job_from_json((DATA / "retracing.job.json").read_text())
# Markdown that no escaped string can hold (our own sentences hold none of it either).
RAW_MARKUP = (
    "![x](",
    "<img",
    "<script",
    "[link](",
    "**bold**",
    ":red[",
    "$x^2$",
    "\n# heading",
    "http://127.0.0.1",
    "```",
    "<!--",
    "&amp;",
)
UNESCAPED = re.compile("|".join(r"(?<!\\)" + re.escape(raw) for raw in RAW_MARKUP))
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)  # holds anything, as code
# What Streamlit's markdown finds in text after the escapes are gone (mdast-util-gfm-autolink-
# literal's finders, remark-emoji and :material/...: shortcodes, :colour[...] directives).
TEXT_LEVEL = (
    re.compile(r"(https?://|www(?=\.))[-.\w]+", re.I),
    re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+"),
    re.compile(r":[-+\w/]+[:\[]"),
)
HOSTILE = [
    hostile_report.hostile("field", PORT),
    "a_b_ *c* `d` <e> &f; [g](h) \\i #j |k| ~l~",
    "``` x ```",
    "`",
    " ` ",
    "line\n\n# heading\n1. item\n    code\n> quote\n---",
    ":smile: :material/home: www.example.com a@b.co",
    "$$x$$ \\$ \\\\",
]


def parsed(markdown: str) -> list:
    """The markdown's inline tokens as CommonMark (and GFM's tables and strikethrough) read it."""
    parser = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return [t for block in parser.parse(markdown) for t in [block, *(block.children or [])]]


def kinds(markdown: str) -> set[str]:
    return {t.type for t in parsed(markdown)}


def shown_text(markdown: str) -> str:
    """The text a reader sees, a line per line (a paragraph's soft breaks, and between blocks)."""
    parser = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return "\n".join(
        "".join("\n" if t.type == "softbreak" else t.content for t in block.children)
        for block in parser.parse(markdown)
        if block.type == "inline"
    )


# --- the helpers ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_literal_reads_back_as_exactly_its_text(text: str) -> None:
    escaped = markdown_literal(text)
    assert kinds(escaped) <= {"paragraph_open", "paragraph_close", "inline", "text", "softbreak"}
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert shown_text(escaped).replace("\u2060", "").split("\n") == lines
    assert unescape_markdown(escaped) == text
    for finder in TEXT_LEVEL:
        assert not finder.search(shown_text(escaped)), finder


@pytest.mark.parametrize("text", HOSTILE)
def test_code_span_is_one_span_of_exactly_its_text(text: str) -> None:
    inner = [
        t
        for t in parsed("args " + code_span(text))
        if t.type not in ("paragraph_open", "paragraph_close", "inline")
    ]
    assert [t.type for t in inner] == ["text", "code_inline"]
    assert inner[1].content == text.replace("\n", " ")


def test_plotly_and_terminal_text() -> None:
    assert plotly_text("<a href='x'>&lt;</a>") == "&lt;a href='x'&gt;&amp;lt;&lt;/a&gt;"
    # OSC (a window title), CSI (clear the screen) in 7 and 8 bits, NUL, DEL, a DCS's ESC P and
    # its ESC \\ go; tab and newline stay.
    assert terminal_text("a\x1b]0;title\x07b\x1b[2Jc\x9b2Jd\x00e\tf\ng\x7fh\x1bPq\x1b\\i") == "abcde\tf\nghqi"


def test_graph_dot_keeps_the_engines_drawings_and_refuses_any_other() -> None:
    drawings = [
        Report.from_json(p.read_text()).functions[0].graph.dot
        for p in sorted(DATA.glob("*.json"))
        if not p.name.endswith(".job.json")
        and p.name != "to_code.json"
        and Report.from_json(p.read_text()).functions
        and Report.from_json(p.read_text()).functions[0].graph
    ]
    assert drawings and all(graph_dot(d) == d for d in drawings)
    good = drawings[0]
    for attack in (
        '  "x" [label="x\\nOp", href="http://127.0.0.1:9/leak"];',
        '  "x" [label="x\\nOp" URL="javascript:alert(1)"];',
        '  "x" -> "y" [image="http://127.0.0.1:9/leak.png"];',
        '  "x\\" [image=\\"y" [label="x\\nOp"];',
    ):
        assert graph_dot(good.replace("\n}", "\n" + attack + "\n}")) == ""
    assert graph_dot(REPORT.functions[0].graph.dot) == ""


def test_the_hostile_report_is_one_the_host_accepts() -> None:
    """The worker can send it: the host's own decoder (contract/protocol.py) lets it through."""
    assert decode(Report, json.loads(REPORT.to_json()), REPORT_BOUNDS) == REPORT


# --- the notebook -----------------------------------------------------------------------------


def forged_counts(count: object) -> Report:
    """The hostile report for the job's entry function, every call's tracing count `count`."""
    function = REPORT.functions[0]
    calls = [
        dataclasses.replace(function.calls[0], index=i, tracing_count=count) for i in range(len(JOB.calls))
    ]
    return dataclasses.replace(
        REPORT, functions=[dataclasses.replace(function, name=JOB.function, calls=calls)]
    )


@pytest.mark.parametrize(
    "count, shown",
    [
        ("1\nimport os; os.system('id')", None),
        ("2\u2028!id", None),
        (float("inf"), None),
        (2.5, "2"),
        (7, "7"),
    ],
)
def test_the_notebook_runs_no_line_a_report_wrote(count: object, shown: object) -> None:
    """A forged count is a whole number in a comment, or nothing: never a line of its own (nor
    one IPython splits off at U+2028, where a `!` line would run a shell command)."""
    job = dataclasses.replace(JOB, timing=True)
    nb = notebook.build(job, forged_counts(count))
    nbformat.validate(nb)
    honest = notebook.build(job, forged_counts(1))
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    # Counts are comments: the code is the honest notebook's, statement for statement.
    assert [ast.dump(ast.parse(c)) for c in code] == [
        ast.dump(ast.parse(c.source)) for c in honest.cells if c.cell_type == "code"
    ]
    assert not any("\u2028" in c for c in code)
    calls = [c for c in code if c.startswith("# Call ")]
    assert len(calls) == len(job.calls)
    for cell in calls:
        assert re.findall(r"# the playground saw (.*)", cell) == ([shown] if shown else [])
    for cell in (c for c in nb.cells if c.cell_type == "markdown"):
        assert kinds(cell.source) <= {
            "paragraph_open",
            "paragraph_close",
            "inline",
            "text",
            "softbreak",
            "heading_open",
            "heading_close",
            "code_inline",
        }
    intro = nb.cells[0].source
    assert unescape_markdown(intro).count(REPORT.tensorflow_version) == 1


# --- the CLI and the Jupyter view ----------------------------------------------------------------


def comparison() -> compare.Comparison:
    spec = compare.CompareSpec("reduce_retracing", True)
    side_b = dataclasses.replace(JOB, reduce_retracing=True)
    other = dataclasses.replace(REPORT, message=hostile_report.hostile("b.message", PORT))
    return compare.compare(spec, JOB, side_b, REPORT, other)


@pytest.mark.parametrize(
    "text", [render_text.render(REPORT), render_compare.render(comparison())], ids=["report", "comparison"]
)
def test_the_terminal_gets_no_control_character(text: str) -> None:
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    assert "leak/functions[0].name.png" in text and "leak/message.png" in text  # still there


class Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


@pytest.mark.parametrize(
    "view",
    [lambda: ReportView(REPORT, JOB.source), lambda: ComparisonView(comparison(), JOB.source)],
    ids=["report", "comparison"],
)
def test_the_jupyter_view_has_no_tag_from_a_report(view) -> None:
    page = view()._repr_html_()
    reader = Tags()
    reader.feed(page)
    names = {tag for tag, _attrs in reader.tags}
    assert names <= {
        "div",
        "style",
        "p",
        "span",
        "pre",
        "h3",
        "h4",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "ul",
        "li",
        "b",
        "br",
        "details",
        "summary",
        "script",
    }
    assert not any(attrs.get("href") or attrs.get("src") for _tag, attrs in reader.tags)
    assert reader.scripts and all("<" not in script for script in reader.scripts)  # charts' JSON
    assert "leak/functions[0].name.png" in page  # the text is there, as text


# --- the page ---------------------------------------------------------------------------------


def test_the_live_progress_caption_escapes_the_workers_words() -> None:
    from playground.ui import run

    for event in hostile_report.events(PORT):
        label, _fraction = run._describe(event, calls=2)
        for field in ("tf_version", "reason", "mode"):
            if field in event:
                assert markdown_literal(event[field]) in label, field
        assert not UNESCAPED.search(label), label
        assert kinds(label) <= {"paragraph_open", "paragraph_close", "inline", "text", "softbreak"}


MARKDOWN_ELEMENTS = ("markdown", "caption", "info", "error", "warning", "success")


def markdown_values(at) -> list[str]:
    """Every text of the page that Streamlit draws as markdown: the elements', and the labels and
    values of metrics, expanders and tabs (measured: they render markdown too)."""
    values = [
        e.value
        for kind in MARKDOWN_ELEMENTS
        for e in getattr(at, kind)
        if not (kind == "markdown" and e.proto.allow_html)
    ]  # HTML: check_page reads it
    values += [text for m in at.metric for text in (m.label, m.value, m.proto.help)]
    values += [e.label for e in at.expander] + [t.label for t in at.tabs]
    return [v for v in values if isinstance(v, str)]


def plotly_strings(at) -> list[str]:
    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
        return [s for item in items for s in strings(item)]

    return [s for e in at.get("plotly_chart") for s in strings(json.loads(e.proto.spec))]


def check_page(at, seen: list[str]) -> None:
    assert not at.exception, [e.value for e in at.exception]
    for value in markdown_values(at):
        assert not UNESCAPED.search(CODE_SPAN.sub("", value)), value
        assert not kinds(value) & {
            "image",
            "link_open",
            "html_inline",
            "html_block",
            "heading_open",
            "fence",
            "code_block",
        }, value
        seen.append(unescape_markdown(value))
    for text in plotly_strings(at):  # titles, ticks, names, hover texts: no tag but ours
        assert not re.search(r"<(?!br>|/?extra>)", text), text
    for element in at.markdown:
        if element.proto.allow_html:  # one HTML block: markdown reads nothing inside it
            assert {t.type for t in parsed(element.value)} == {"html_block"}, element.value
    for element in [*at.html, *(m for m in at.markdown if m.proto.allow_html)]:
        reader = Tags()
        reader.feed(element.value)
        assert {tag for tag, _attrs in reader.tags} <= {"div", "span", "style", "script"}, element.value
        assert not any(attrs.get("src") or attrs.get("href") for _tag, attrs in reader.tags)
    assert not at.get("graphviz_chart")  # its drawing is not the engine's: not drawn


@pytest.fixture
def hostile_page(monkeypatch):
    """The app (AppTest) on a shared link whose run the executor answers with the hostile
    report (the marker in its code), the plain editor (AppTest cannot drive the code box)."""
    from streamlit.testing.v1 import AppTest

    from playground import gallery
    from playground.contract import share_link

    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "hostile_report:executor")
    monkeypatch.setenv(hostile_report.LEAK_PORT_ENV, str(PORT))
    monkeypatch.setenv("PLAYGROUND_EDITOR", "plain")
    at = AppTest.from_file(str(repo_paths.APP), default_timeout=60)
    source = gallery.BY_SLUG["retracing"].source + "\n" + hostile_report.MARKER + "\n"
    params = share_link.input_params(
        source=source,
        function="process",
        calls="float32[3]",
        values={"timing": True, "timing_budget_s": 1.0},
    )
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    return at


def test_every_tab_of_a_hostile_report_draws_text_only(hostile_page) -> None:
    from playground.ui import keys
    from playground.ui.results import EXPORT_TAB, TABS

    at = hostile_page
    at.button(key=keys.RUN).click().run()
    seen: list[str] = []
    at.session_state[f"{keys.LIBRARY_MAKER}_0"] = True  # the library functions' panel, open
    for label in (*TABS, EXPORT_TAB):
        at.session_state[keys.RESULT_TAB] = label
        at.run()
        check_page(at, seen)
    shown = "\n".join(seen)
    # The hostile text is on the page, as text: one field of each kind of place.
    for field in (
        "device",
        "tensorflow_version",
        "message",
        "error.type",
        "warnings[0].code",
        "warnings[0].message",
        "warnings[0].fix",
        "functions[0].conversion_note",
        "functions[0].retracing_warnings[0]",
        "functions[0].calls[0].args",
        "fallbacks[0].detail",
        "functions[0].graph.note",
        "functions[0].timing.notes[0]",
        "timing.environment.device",
        "export.reason",
        "library_functions[0].maker",
    ):
        assert hostile_report.leak_url(PORT, field) in shown, field


def test_both_sides_of_a_hostile_compare_draw_text_only(hostile_page) -> None:
    from playground.ui import keys

    at = hostile_page
    at.toggle(key=keys.COMPARE).set_value(True).run()
    at.selectbox(key=keys.COMPARE_KIND).set_value("reduce_retracing").run()
    at.button(key=keys.RUN).click().run()
    assert at.session_state[keys.RESULT].comparison is not None
    seen: list[str] = []
    for label in ("Calls", "Converted code", "Graph", "Timing"):
        at.session_state[keys.COMPARE_TAB] = label
        at.run()
        check_page(at, seen)
    shown = "\n".join(seen)
    for field in ("device", "tensorflow_version", "message", "functions[0].graph.note"):
        assert hostile_report.leak_url(PORT, field) in shown, field


def test_a_call_error_without_a_message_is_a_row_too() -> None:
    """`raise ValueError()` has an empty message; the Traces tab's table once failed on it."""
    from playground.reports.tables import timeline_rows

    call = dataclasses.replace(
        REPORT.functions[0].calls[0],
        error=dataclasses.replace(REPORT.functions[0].calls[0].error, type="ValueError", message=""),
    )
    (row,) = timeline_rows(dataclasses.replace(REPORT.functions[0], calls=[call]))
    assert row["result"] == "ValueError: "


# --- a share link ------------------------------------------------------------------------------

LINK = "[click](https://evil.example) "


@pytest.mark.parametrize(
    "params",
    [
        {"fn": LINK, "calls": LINK, "example": LINK, "sig": LINK, "timing": "1", "sweep": LINK, "tol": LINK},
        {"code": "def f(x):\n    return x  # " + LINK, "fn": "f", "calls": "float32[3]\n" + LINK},
    ],
    ids=["every field", "code and plan"],
)
def test_a_share_links_parameters_are_drawn_as_text(monkeypatch, params: dict) -> None:
    """What a link's parameters hold is the visitor's to read, never a link to follow: the page
    on the link, Run pressed (each field's refusal beside it quotes the field), draws no link."""
    from streamlit.testing.v1 import AppTest

    from playground.contract import share_link
    from playground.ui import keys

    monkeypatch.setenv("PLAYGROUND_UI_EXECUTOR", "ui_support:replay")
    monkeypatch.setenv("PLAYGROUND_EDITOR", "plain")
    at = AppTest.from_file(str(repo_paths.APP), default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = share_link.encode_source(value) if name == "code" else value
    at.run()
    at.session_state[keys.OPTIONS_PANEL] = True
    at.button(key=keys.RUN).click().run()
    assert not at.exception, [e.value for e in at.exception]
    values = markdown_values(at)
    for value in values:
        hrefs = [t.attrGet("href") for t in parsed(value) if t.type in ("link_open", "image")]
        assert all(str(href).startswith("#field-") for href in hrefs), value  # "Show the field" only
        assert not TEXT_LEVEL[0].search(shown_text(value)), value  # no autolink of the address
    assert any(LINK.strip() in unescape_markdown(value) for value in values)  # said, as text
