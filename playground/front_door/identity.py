"""Who is asking: the client identity that every limit counts by (a person, not a browser tab).

The peer address by default. Behind a reverse proxy every peer is the proxy, so the operator
names the header that carries the visitor's address (PLAYGROUND_CLIENT_IP_HEADER); it is never
read unless configured, because anyone can send it. Of X-Forwarded-For only the right-most hop
is trusted: it is the one the proxy appended. The front door (an ASGI middleware) and the fair
queue (a page run, through st.context) both ask this module, so they count the same clients.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Optional, Union

LOCAL = "localhost"       # a loopback visitor (Streamlit's st.context reports no address for one)
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def identity(header: str, headers: Mapping[str, str], peer: Optional[str]) -> str:
    """The client's identity from the configured header (if any) or the peer address."""
    if header:
        value = next((str(v) for k, v in headers.items() if k.lower() == header.lower()), "")
        hops = [hop.strip() for hop in value.split(",") if hop.strip()]
        if hops:
            return hops[-1] if header.lower() == "x-forwarded-for" else hops[0]
    if isinstance(peer, str) and peer and peer not in LOOPBACK:
        return peer
    return LOCAL


def of_scope(header: str, scope: Mapping[str, object]) -> str:
    """The identity of an ASGI connection (HTTP request or websocket)."""
    raw: Iterable[tuple[bytes, bytes]] = scope.get("headers") or ()   # type: ignore[assignment]
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw} if header else {}
    client: Union[tuple[str, int], list, None] = scope.get("client")  # type: ignore[assignment]
    return identity(header, headers, client[0] if client else None)
