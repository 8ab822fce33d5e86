"""Streamlit entry point: page config, then the playground UI (which never imports TensorFlow)."""
from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="tf.function playground", page_icon="🔁", layout="wide")

from playground.ui import main  # noqa: E402  (set_page_config must come first)

main()
