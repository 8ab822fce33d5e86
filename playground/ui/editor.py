"""The source editor, the gallery picker and the function picker."""
from __future__ import annotations

import streamlit as st

from .. import gallery
from . import keys, source_info, state


def gallery_picker() -> None:
    slugs = [e.slug for e in gallery.EXAMPLES]
    if st.session_state.get(keys.EXAMPLE) not in slugs:
        st.session_state[keys.EXAMPLE] = slugs[0]
    st.selectbox("Example", slugs, key=keys.EXAMPLE, on_change=state.load_example,
                 format_func=lambda s: f"{gallery.BY_SLUG[s].title} ({s})",
                 help="Loads an example from the gallery into the editor and the call plan.")


def gallery_panel() -> None:
    """The chosen example's explanation, and what the article says it does."""
    example = gallery.BY_SLUG.get(st.session_state.get(keys.EXAMPLE, ""))
    if example is None:
        return
    edited = st.session_state.get(keys.SOURCE) != example.source
    title = f"Based on example: {example.title} (edited)" if edited else f"About this example: {example.title}"
    with st.expander(title, expanded=not edited):
        st.markdown(example.explanation)
        if example.article_claim:
            st.markdown(f"**The article says:** {example.article_claim}")
        if example.fixed_by:
            fixed = gallery.BY_SLUG.get(example.fixed_by)
            st.caption(f"Fixed version: `{example.fixed_by}`" + (f" ({fixed.title})" if fixed else ""))


def source_editor() -> list[source_info.FunctionInfo]:
    st.text_area("Your TensorFlow code", key=keys.SOURCE, height=260,
                 help="Paste a module that defines a function. It runs in a sandboxed worker, "
                      "never in this web process.")
    source = st.session_state.get(keys.SOURCE, "")
    error = source_info.syntax_error(source)
    if error:
        st.error(f"Syntax error, {error}")
    return source_info.functions(source)


def function_picker(infos: list[source_info.FunctionInfo]) -> source_info.FunctionInfo | None:
    names = [i.name for i in infos]
    if not names:
        st.info("No function found in the code yet: define one with `def`.")
        return None
    if st.session_state.get(keys.FUNCTION) not in names:
        # The source changed under the picker: fall back to the likeliest entry.
        st.session_state[keys.FUNCTION] = source_info.default_function(infos)
    st.selectbox("Function to call", names, key=keys.FUNCTION,
                 format_func=lambda n: n + ("  (@tf.function)" if next(
                     i for i in infos if i.name == n).decorated else ""))
    return next(i for i in infos if i.name == st.session_state[keys.FUNCTION])
