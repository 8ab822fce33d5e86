"""The source editor, the gallery picker and the function picker."""

from __future__ import annotations

import html
import json
from collections.abc import Callable

import streamlit as st

from .. import gallery
from ..contract import i18n, job_request, protocol, source_info
from ..contract.config import Settings
from ..contract.i18n import N_, _, sentences
from ..contract.job import Job
from ..gallery import article
from ..reports import drawn, notebook
from ..reports.safe_text import code_span, markdown_literal
from . import code_box, folded, gutter, keys, language, state

SOURCE_HELP = N_(
    "Paste a module that defines a function. It runs in a sandboxed worker, never in this web process."
)
# Ace options: Python mode comes from `lang`; these make it an editor for code.
ACE_OPTIONS = {
    "showLineNumbers": True,
    "tabSize": 4,
    "useSoftTabs": True,
    "navigateWithinSoftTabs": True,
    "fontFamily": '"Source Code Pro", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    "fontSize": 13,
    "wrap": True,  # soft wrap: every line read in full at 1400x900 (issue 42)
    "indentedSoftWrap": True,
    "showPrintMargin": False,
    "highlightActiveLine": True,
    "minLines": 14,
    "maxLines": 32,
}  # it grows with the code, from 14 lines to 32


def _load_component() -> Callable[..., None] | None:
    """The code box (Ace in the page), or None when its files are missing."""
    return code_box.code_box if code_box.ready() else None


def gallery_picker() -> None:
    # In the article's order, each with its section's number; the first visit opens on the
    # gallery's first example (retracing), wherever it sits in the article.
    slugs = list(article.ORDER) + [e.slug for e in gallery.EXAMPLES if e.slug not in article.ORDER]
    if st.session_state.get(keys.EXAMPLE) not in slugs:
        st.session_state[keys.EXAMPLE] = gallery.EXAMPLES[0].slug
    st.selectbox(
        _("Example"),
        slugs,
        key=keys.EXAMPLE,
        on_change=state.load_example,
        format_func=i18n.bound(example_label),
        help=_("Loads an example from the gallery into the editor and the call plan."),
    )


def example_label(slug: str) -> str:
    """'2.1 · Retracing and polymorphic dispatch (retracing)': the article's section first."""
    section = article.SECTION_OF.get(slug)
    title = f"{_(gallery.BY_SLUG[slug].title)} ({slug})"
    return f"{section.number} · {title}" if section else title


def gallery_panel() -> None:
    """The chosen example's explanation, and what the article says it does; none while the
    results show a saved report, which is no example's."""
    example = gallery.BY_SLUG.get(st.session_state.get(keys.EXAMPLE, ""))
    shown = state.result()
    if example is None or (shown is not None and shown.saved):
        return
    source = str(st.session_state.get(keys.SOURCE) or "")
    edited = source != example.source
    if edited and not based_on(example, source):
        return  # code of the person's own: the example's story is not about it
    name = _(example.title)
    title = (_("Based on example: {title} (edited)") if edited else _("About this example: {title}")).format(
        title=name
    )
    with st.expander(title, expanded=not edited):
        st.markdown(_(example.explanation))
        if example.article_claim:
            st.markdown(_("**The article says:** {claim}").format(claim=_(example.article_claim)))
        if example.fixed_by:
            fixed = gallery.BY_SLUG.get(example.fixed_by)
            st.caption(
                _("Fixed version: {slug}").format(slug=f"`{example.fixed_by}`")
                + (f" ({_(fixed.title)})" if fixed else "")
            )


def based_on(example: gallery.Example, source: str) -> bool:
    """Whether edited code is still that example's: its entry function is still defined, or
    (a script) at least half of its lines are still there (a set: linear in the text)."""
    if example.function:
        return f"def {example.function.split('.')[-1]}(" in source
    ours = [line.strip() for line in example.source.splitlines() if line.strip()]
    theirs = {line.strip() for line in source.splitlines()}
    return bool(ours) and sum(line in theirs for line in ours) >= len(ours) / 2


def keep_source() -> None:
    """The text lives in st.session_state[keys.SOURCE] whichever editor draws it; held each
    run, it stays when the text area (whose key it is) is not drawn."""
    folded.hold(keys.SOURCE)


def apply_editor_event() -> None:
    """on_change of the code box: its text into keys.SOURCE (once per event, by its id), before
    the page run reads the source; Ctrl+Enter (`submit`) also asks for a run."""
    value = (st.session_state.get(keys.CODE_EDITOR) or {}).get("event")
    if not isinstance(value, dict) or not value.get("id"):
        return
    if value["id"] == st.session_state.get(keys.EDITOR_EVENT):
        return
    st.session_state[keys.EDITOR_EVENT] = value["id"]
    text = value.get("text")
    if isinstance(text, str):
        st.session_state[keys.SOURCE] = text
    if value.get("type") == "submit":
        st.session_state[keys.RUN_REQUESTED] = True


def use_code_editor(settings: Settings) -> bool:
    return settings.editor != "plain" and not st.session_state.get(keys.PLAIN_EDITOR)


def _text_area() -> None:
    st.text_area(_("Your TensorFlow code"), key=keys.SOURCE, height=260, help=_(SOURCE_HELP))


def _code_editor(component: Callable[..., None]) -> None:
    """The caption and the editor, with the last report's gutter marks (a run later in this
    page run hands it its own: ui.run_button)."""
    st.caption(_("Your TensorFlow code · **Ctrl+Enter** (⌘+Enter) runs it"), help=_(SOURCE_HELP))
    with st.container(key="source_box"):
        component(
            st.session_state.get(keys.SOURCE, ""),
            st.session_state.get(keys.EDITOR_GENERATION, 0),
            gutter_marks(),
            ACE_OPTIONS,
            _("The code editor could not load. Switch on the Plain text box below."),
            key=keys.CODE_EDITOR,
            on_event=apply_editor_event,
            run=_run_number(),
        )


def _run_number() -> int:
    result = state.result()
    return result.number if result else 0


def gutter_marks() -> list[dict]:
    """Ace annotations for the editor's text and the last run's report."""
    result = state.result()
    return gutter.annotations(
        st.session_state.get(keys.SOURCE, ""),
        result.report if result else None,
        result.job.source if result else None,
    )


# Hands new gutter marks to the editor already on the page, without redrawing it: a Run redraws
# only its fragment (ui/__init__.py), not the editor. Ace keeps itself on its element
# (`el.env.editor`). Marks are data (JSON in an attribute of the element before the script),
# never markup, and Ace shows their text as text. The script's own text never changes, so the
# page's Content-Security-Policy allows it by its hash (front_door/page_headers.py); a new Run's
# element differs in its attributes, so Streamlit draws it, and the browser runs it, again. The
# next page rerun draws the editor with the same marks as its data.
PUSH_MARKS = """(() => {
  const data = document.currentScript && document.currentScript.previousElementSibling;
  const node = document.querySelector(".st-key-source_box .ace_editor");
  const editor = node && node.env && node.env.editor;   // none while the text is newer than the run's
  const run = data ? Number(data.dataset.run) : 0;      // never an older run's over a newer's
  if (data && editor && editor.getValue() === node.known && run >= (node.marksRun || 0)) {
    editor.session.setAnnotations(JSON.parse(data.dataset.marks));
    node.marksRun = run;
  }
})();"""


def push_gutter_marks(settings: Settings, number: int) -> None:
    """After a Run: the new report's marks to the code editor already drawn (if it is).
    `number` makes each Run's element new, so the browser runs its script again."""
    if _load_component() is None or not use_code_editor(settings):
        return
    st.html(push_script(gutter_marks(), int(number)), unsafe_allow_javascript=True)


def push_script(marks: list[dict], run: int) -> str:
    """PUSH_MARKS after a hidden element that holds the marks as JSON in an attribute. <, > and &
    are JSON's \\u escapes (Streamlit's DOMPurify drops an attribute whose value holds "-->" or
    "</style", which an exception's message may), and the quotes are HTML's: nothing ends it."""
    data = json.dumps(marks).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    data = html.escape(data, quote=True)
    return (
        f'<div hidden class="pg-marks" data-run="{int(run)}" '
        f'data-marks="{data}"></div><script>{PUSH_MARKS}</script>'
    )


def open_file(max_source_bytes: int) -> None:
    """on_change of the file uploader: a .py or .ipynb file's code replaces the editor's; a
    .json is a saved report (trace mode's, or `analyze --json`), shown in the results."""
    language.apply()  # a callback runs before the page's run has set the session's language
    upload = st.session_state.get(keys.OPEN_FILE)
    if upload is None:
        st.session_state.pop(keys.OPEN_NOTE, None)
        return
    if upload.name.lower().endswith(".json"):
        open_report(upload.name, upload.getvalue())
        return
    try:
        opened = notebook.code_of(upload.name, upload.getvalue())
        if len(opened.source.encode()) > max_source_bytes:
            raise ValueError(_("its code is over {limit} bytes").format(limit=max_source_bytes))
    except ValueError as error:
        st.session_state[keys.OPEN_NOTE] = (
            "error",
            _("Could not open {name}: {reason}.").format(
                name=markdown_literal(upload.name), reason=markdown_literal(error)
            ),
        )
        return
    st.session_state[keys.SOURCE] = opened.source
    state.code_from_outside()
    note = _("Opened {name}.").format(name=markdown_literal(upload.name))
    if opened.dropped:
        note = sentences(
            note,
            _("Left out, because plain Python cannot run them: {items}.").format(
                items=", ".join(code_span(item) for item in opened.dropped)
            ),
        )
    st.session_state[keys.OPEN_NOTE] = ("info", note)


def open_report(name: str, data: bytes) -> None:
    """A saved report into the results panes, read-only. The file is untrusted, as a worker's
    report is: as large as one may be, parsed and decoded by the same bounded path."""
    try:
        result = saved_result(name, data, state.next_number())
    except ValueError as error:  # MalformedMessage among them: JSON, its size, a field
        st.session_state[keys.OPEN_NOTE] = (
            "error",
            _("Could not open {name}: {reason}.").format(
                name=markdown_literal(name),
                reason=markdown_literal(_("not a saved report") + ": " + str(error)),
            ),
        )
        return
    st.session_state[keys.RESULT] = result
    st.session_state[keys.OPEN_NOTE] = (
        "info",
        _("Opened the saved report {name}.").format(name=markdown_literal(name)),
    )


def saved_result(name: str, data: bytes, number: int) -> state.Result:
    """The result a saved report's bytes make, checked as a worker's report is (and trace
    mode's cited lines held to the bounds it writes them in), then cut to what the page draws
    in bounded time (reports/drawn.py), each cut said; ValueError if they are none."""
    if len(data) > protocol.REPORT_LINE_BYTES:
        raise ValueError(_("it is over {limit} bytes").format(limit=protocol.REPORT_LINE_BYTES))
    report, cuts = drawn.fit(protocol.decode_report(data))
    return state.Result(
        job=Job(source="", function=None, filename=name),
        report=report,
        example=None,
        number=number,
        saved=name,
        cuts=tuple(cuts),
    )


def file_opener(settings: Settings) -> None:
    """The uploader, in a panel drawn only while open: few visitors open a file."""
    box = folded.expander(_("Open a .py or .ipynb file, or a saved report"), keys.OPEN_PANEL)
    if box is None:
        return
    with box:
        st.caption(
            _(
                "Its code replaces the editor's: a notebook's code cells, joined. "
                "Magics (%...) and shell lines (!pip ...) are left out. A .json report (from "
                "`python -m playground trace` or `analyze --json`) opens in the results, read-only."
            )
        )
        st.file_uploader(
            _("Open a .py or .ipynb file, or a saved report"),
            type=["py", "ipynb", "json"],
            key=keys.OPEN_FILE,
            on_change=open_file,
            args=(settings.max_source_bytes,),
            label_visibility="collapsed",
        )
        kind, message = st.session_state.get(keys.OPEN_NOTE) or ("", "")
        if kind == "error":
            st.error(message)
        elif kind:
            st.info(message)


def source_editor(settings: Settings) -> list[source_info.FunctionInfo]:
    """The editor (or the text area), its syntax check, and the functions the code defines."""
    component = _load_component() if use_code_editor(settings) else None
    if component is not None:
        _code_editor(component)
    else:
        if use_code_editor(settings):  # wanted, but its package or assets are missing
            st.warning(
                _(
                    "The code editor could not be loaded, so this is a plain text box. "
                    "Everything works; Ctrl+Enter applies the text, the Run button runs it."
                )
            )
        _text_area()
    if settings.editor != "plain":
        st.toggle(
            _("Plain text box"),
            key=keys.PLAIN_EDITOR,
            help=_(
                "Edit in a plain text box instead of the code editor, for instance when "
                "the editor does not load in your browser."
            ),
        )
    source = str(st.session_state.get(keys.SOURCE) or "")
    too_large = job_request.source_size_problem(source, settings)
    if too_large:  # Run refuses it by its size: not parsed here either
        st.error(too_large)
        return []
    reading = source_info.read(source)  # once per code, for the picker and the plan too
    error = reading.syntax_problem()
    if error:
        st.error(_("Syntax error, {error}").format(error=markdown_literal(error)))
    return list(reading.functions)


SCRIPT = ""  # the picker's entry for script mode: the file runs as `python file.py` would


def function_picker(infos: list[source_info.FunctionInfo]) -> source_info.FunctionInfo | None:
    names = [i.name for i in infos]
    if not names:
        source = str(st.session_state.get(keys.SOURCE) or "")
        if (
            source.strip()
            and not job_request.source_size_problem(source, Settings.from_env())
            and not source_info.syntax_error(source)
        ):  # a syntax error, or a size over the limit, says itself
            st.caption(
                _("No function defined: Run runs the whole file as a script, as `python file.py` would.")
            )
        return None
    choices = names + [SCRIPT]
    example = gallery.BY_SLUG.get(str(st.session_state.get(keys.EXAMPLE) or ""))
    if (
        example is not None
        and example.function
        and example.function not in choices
        and st.session_state.get(keys.SOURCE) == example.source
    ):
        choices.append(example.function)  # the example's entry expression: Counter().increment
    if st.session_state.get(keys.FUNCTION) not in choices:
        # The source changed under the picker: fall back to the likeliest entry.
        st.session_state[keys.FUNCTION] = source_info.default_function(infos)

    def label(name: str) -> str:
        if name == SCRIPT:
            return _("run as script: the whole file, as python file.py would")
        return name + ("  (@tf.function)" if any(i.name == name and i.decorated for i in infos) else "")

    st.selectbox(_("Function to call"), choices, key=keys.FUNCTION, format_func=i18n.bound(label))
    return next((i for i in infos if i.name == st.session_state[keys.FUNCTION]), None)
