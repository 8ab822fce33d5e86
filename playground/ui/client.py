"""Who is asking, in a page run: the client identity (playground/front_door/identity.py) of the
session's own request, as st.context reports it."""

from __future__ import annotations

import streamlit as st

from ..front_door.identity import LOCAL, identity

__all__ = ["LOCAL", "client_id", "identity"]


def client_id(header: str) -> str:
    try:
        headers = dict(st.context.headers) if header else {}
        peer = st.context.ip_address
    except Exception:  # noqa: BLE001 - no request context (bare script run): one anonymous client
        headers, peer = {}, None
    return identity(header, headers, peer)
