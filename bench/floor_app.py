"""The floor for bench_ui's first visitor: a bare Streamlit page, one text area and a button.

No page of this Streamlit can be ready sooner in the same browser on the same machine, so
bench_ui prints its time beside the playground's. Not part of the app. Its server gets the one
fix the app's gets that any Streamlit page would want (`hosting.no_delay`: no 40 ms Nagle
stall per kept-alive answer), so the floor stays the best this stack does.
"""

import streamlit as st

if __name__ == "__main__":  # a page run
    st.set_page_config(page_title="floor", layout="wide")
    st.text_area("Code", "def f(x):\n    return x + 1\n", height=260)
    with st.container(key="run"):
        st.button("Run", type="primary")
else:  # imported by `streamlit run` to find the ASGI app
    import contextlib

    from playground.front_door import hosting

    @contextlib.asynccontextmanager
    async def _lifespan(_app):  # type: ignore[no-untyped-def]
        hosting.no_delay()
        yield

    app = st.App(__file__, lifespan=_lifespan)
