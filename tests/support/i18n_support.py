"""What a reader sees on an AppTest page, and the English words left in it (tests of the zh page).

Visible text: labels, help texts, placeholders, options, markdown, captions, alerts, metrics,
tab and expander labels, table headers, and the titles, axis titles, legend and hover text of
charts. Left out, because they are the user's or TensorFlow's own text: code blocks, the
editor's and the call plan's contents, table cells, and raw HTML panes (the code side by side).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from playground.contract.specs import DTYPES

# Names that stay as they are in every language (docs/i18n.md, "What is not translated"):
# products and libraries, units, file formats, keys, and the language's own name on its toggle.
NAMES = {
    "tf",
    "TensorFlow",
    "TF",
    "AutoGraph",
    "Grappler",
    "XLA",
    "HLO",
    "Python",
    "NumPy",
    "Jupyter",
    "SavedModel",
    "TensorBoard",
    "TensorSpec",
    "CPU",
    "GPU",
    "AMD",
    "EPYC",
    "oneDNN",
    "IQR",
    "CSV",
    "JSON",
    "KiB",
    "MiB",
    "ms",
    "µs",
    "py",
    "ipynb",
    "zip",
    "Ctrl",
    "Enter",
    "English",
    "shell",
    "Keras",
    "matmul",
    "FLOPs",
    # Python and TF words written as code in prose (the article writes "相同 shape"): keywords,
    # types, dtype, the isolation kinds.
    "int",
    "float",
    "dtype",
    "batch",
    "rank",
    "lambda",
    "def",
    "if",
    "for",
    "while",
    "None",
    "True",
    "False",
    "print",
    "self",
    "shape",
    "bubblewrap",
    "none",
    "actor",
    "xla",
    "timeit",
    *DTYPES,
}
# Tokens with a dot, underscore, bracket, digit or operator are code (tf.print, input_signature,
# float32[3], x[0]=16): identifiers stay untranslated by rule.
CODE = re.compile(r"[._\[\]()=<>/\\#@%{}0-9*+|!µ-]")
SOURCE_LINE = re.compile(r"^\d+: ")  # a picker's option that quotes a line of the user's code
# Quoted machine text: an exception's own message, the article's printed benchmark output.
QUOTED = re.compile(r"\b\w+Error: [^。；，）\n]*|\b(?:Eager|Graph): [0-9.]+s")
WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
EXCEPTION = re.compile(r"^[A-Z]\w*(Error|Exception|Warning|Exit|Interrupt)$")  # TypeError
INLINE_CODE = re.compile(r"`[^`]*`")


def _plotly_texts(spec: dict) -> Iterator[str]:
    layout = spec.get("layout", {})
    for _key, value in layout.items():
        if isinstance(value, dict) and isinstance(value.get("title"), dict):
            yield value["title"].get("text") or ""
    title = layout.get("title")
    yield (title.get("text") if isinstance(title, dict) else title) or ""
    for trace in spec.get("data", []):
        yield str(trace.get("name") or "")
        yield re.sub(r"<[^>]+>", " ", str(trace.get("hovertemplate") or ""))
        text = trace.get("text")
        if (
            isinstance(text, list)
            and trace.get("type") == "scatter"
            and trace.get("mode", "").endswith("text")
        ):
            yield from (str(t) for t in text)


def visible_texts(at) -> list[str]:  # type: ignore[no-untyped-def]
    """Every piece of text a reader sees in the AppTest tree."""
    out: list[str] = []

    def visit(node) -> None:  # type: ignore[no-untyped-def]
        kind = type(node).__name__
        proto = getattr(node, "proto", None)
        if kind in ("Code", "Html", "Json", "Exception"):
            return
        if kind == "UnknownElement" and proto is not None and proto.DESCRIPTOR.name == "PlotlyChart":
            out.extend(_plotly_texts(json.loads(proto.spec)))
        elif kind == "UnknownElement":
            pass  # a graphviz drawing: op names, the graph's own text

        elif kind == "Dataframe":
            out.extend(str(column) for column in node.value.columns)
        elif proto is not None:
            for field in ("label", "body", "help", "placeholder"):
                value = getattr(proto, field, None)
                if isinstance(value, str):
                    out.append(value)
            if kind in ("Selectbox", "Radio", "Multiselect"):
                out.extend(str(o) for o in proto.options if not SOURCE_LINE.match(str(o)))
            popover = getattr(proto, "popover", None)
            if popover is not None and popover.label:
                out.append(popover.label)
        for child in (getattr(node, "children", None) or {}).values():
            visit(child)

    visit(at._tree)
    # Markdown that is HTML is the user's source with its problem lines marked.
    return [text for text in out if text and not text.lstrip().startswith("<")]


def english_words(texts: Iterable[str], allowed: Iterable[str] = ()) -> list[str]:
    """ASCII words of natural English left in texts: not code, not a name in NAMES or `allowed`."""
    names = NAMES | set(allowed)
    found = []
    for text in texts:
        text = QUOTED.sub(" ", INLINE_CODE.sub(" ", text)).replace("**", " ")
        for token in text.split():
            if CODE.search(token):
                continue
            for word in WORD.findall(token):
                if word not in names and not EXCEPTION.match(word) and word.rstrip("'’") not in names:
                    found.append(f"{word!r} in {text[:80]!r}")
    return found
