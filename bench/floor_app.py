"""The floor for bench_ui's first visitor: a bare Streamlit page, one text area and a button.

No page of this Streamlit can be ready sooner in the same browser on the same machine, so
bench_ui prints its time beside the playground's. Not part of the app.
"""
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.text_area("Code", "def f(x):\n    return x + 1\n", height=260)
with st.container(key="run"):
    st.button("Run", type="primary")
