"""A report's strings as text wherever they land: markdown, a code span, plotly's text, a terminal.

The worker that writes a Report runs hostile code, so every string in it may be forged
(docs/architecture.md, "The trust boundary"). Streamlit renders markdown in st.markdown,
st.caption, st.info and its kin, metric values and labels, expander, tab and widget labels
(measured on 1.67: an image there is fetched by the visitor's browser); plotly renders a subset
of HTML in titles, tick labels and hover texts; a terminal obeys escape sequences. One helper
per place, used wherever a report's string meets it. Pure: no Streamlit, no plotly here.
"""

from __future__ import annotations

import html
import re
import string

# CommonMark: "Any ASCII punctuation character may be backslash-escaped", and an escaped one is
# a literal, so escaping them all leaves no markdown, HTML, entity, link or image syntax.
_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
# What Streamlit's markdown still finds in text after the escapes are gone: GFM's literal
# autolinks (http://x, www.x, a@b.c), emoji and :material/icon: shortcodes and :red[...]
# directives all begin at one of these. A word joiner (U+2060, invisible) after it breaks them;
# a colon before a space (the common "TypeError: ...") needs none.
_LINK_STARTS = re.compile(r"(?<=[:@])(?=\S)|(?<=www)(?=\\\.)", re.IGNORECASE)
WORD_JOINER = "\u2060"
_LINE_END = re.compile(r"\r\n|\r|\n")
_BACKTICKS = re.compile(r"`+")
# Terminal control: ESC sequences (CSI, OSC up to BEL or ST, two-character ones), then every
# other C0 and C1 control except newline and tab. DEL too.
_ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])"
    r"|[\x9b][0-?]*[ -/]*[@-~]|[\x9d][^\x07\x9c]*[\x07\x9c]?"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def markdown_literal(text: object) -> str:
    """`text` as markdown that renders as exactly these characters: no emphasis, heading, list,
    link, image, HTML, math, emoji or colour. Newlines stay (a paragraph break shows as one; a
    line indented four spaces after a blank one shows in a code block, as text)."""
    escaped = _PUNCTUATION.sub(r"\\\1", str(text))
    return _LINK_STARTS.sub(WORD_JOINER, escaped)


def code_span(text: object) -> str:
    """`text` as one inline code span: fenced by more backticks than any run inside it, on one
    line (a line break inside would let the next line start a heading or a list)."""
    value = _LINE_END.sub(" ", str(text))
    if not value:
        return ""
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end of a span that has them; a backtick at an end
    # would join the fence.
    if value[0] in "` " or value[-1] in "` ":
        value = f" {value} "
    return f"{fence}{value}{fence}"


def plotly_text(text: object) -> str:
    """`text` for a plotly title, tick label, legend name or hover text, which read <br>, <a>,
    <b> and entities: < > & as entities, which plotly shows as the characters."""
    return html.escape(str(text), quote=False)


def terminal_text(text: object) -> str:
    """`text` without terminal control: no escape sequence (cursor moves, colours, a new window
    title), no other C0 or C1 control except newline and tab."""
    return _CONTROL.sub("", _ANSI.sub("", str(text)))


def unescape_markdown(markdown: str) -> str:
    """What a reader sees of markdown_literal's output (its inverse): for tests and for text
    that must be compared with the original."""
    return re.sub(r"\\([" + re.escape(string.punctuation) + "])", r"\1", markdown.replace(WORD_JOINER, ""))


# The engine's drawing of a graph (engine/graphs.py, to_dot), line by line. Graphviz turns
# attributes into links (href, URL) and images, so a drawing is redrawn from these shapes only.
_NAME = r"[A-Za-z0-9_.>/-]+"  # a TensorFlow node name or op type: no quote, no backslash
_DOT_HEAD = (
    "digraph G {",
    "  rankdir=TB;",
    '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica", fontsize=10];',
)
_DOT_NODE = re.compile(rf'  "({_NAME})" \[label="({_NAME})\\n({_NAME})"\];')
_DOT_EDGE = re.compile(rf'  "({_NAME})" -> "({_NAME})"( \[style=dashed\])?;')
_DOT_MORE = re.compile(
    r'  more \[label="\.\.\. ([0-9]{1,9}) more ops not drawn", shape=note, '
    r'fillcolor="#fff4d6"\];'
)


def graph_dot(dot: str) -> str:
    """The report's graph drawing redrawn from the engine's own shapes (nodes, edges, the "more"
    note), or "" when any line has another shape: then it was not the engine that wrote it."""
    lines = dot.split("\n")
    if tuple(lines[:3]) != _DOT_HEAD or lines[-1:] != ["}"]:
        return ""
    out = list(_DOT_HEAD)
    for line in lines[3:-1]:
        if node := _DOT_NODE.fullmatch(line):
            out.append(f'  "{node[1]}" [label="{node[2]}\\n{node[3]}"];')
        elif edge := _DOT_EDGE.fullmatch(line):
            out.append(f'  "{edge[1]}" -> "{edge[2]}"' + (" [style=dashed]" if edge[3] else "") + ";")
        elif more := _DOT_MORE.fullmatch(line):
            out.append(
                f'  more [label="... {int(more[1])} more ops not drawn", shape=note, fillcolor="#fff4d6"];'
            )
        else:
            return ""
    return "\n".join(out + ["}"])
