"""Who is asking: the client identity the fair queue counts by (a person, not a browser tab).

The peer address of the WebSocket by default. Behind a reverse proxy every peer is the proxy,
so the operator names the header that carries the visitor's address
(PLAYGROUND_CLIENT_IP_HEADER); it is never read unless configured, because anyone can send it.
Of X-Forwarded-For only the right-most hop is trusted: it is the one the proxy appended.
"""
from __future__ import annotations

from typing import Mapping, Optional

import streamlit as st

LOCAL = "localhost"       # Streamlit reports no address for a loopback visitor


def identity(header: str, headers: Mapping[str, str], peer: Optional[str]) -> str:
    """The client's identity from the configured header (if any) or the peer address."""
    if header:
        value = next((str(v) for k, v in headers.items() if k.lower() == header.lower()), "")
        hops = [hop.strip() for hop in value.split(",") if hop.strip()]
        if hops:
            return hops[-1] if header.lower() == "x-forwarded-for" else hops[0]
    return peer if isinstance(peer, str) and peer else LOCAL


def client_id(header: str) -> str:
    try:
        headers = dict(st.context.headers) if header else {}
        peer = st.context.ip_address
    except Exception:  # noqa: BLE001 - no request context (bare script run): one anonymous client
        headers, peer = {}, None
    return identity(header, headers, peer)
