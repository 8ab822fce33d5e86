"""Who is asking: the client identity that every limit counts by (a person, not a browser tab).

The peer address by default. Behind a reverse proxy every peer is the proxy, so the operator
names the header that carries the visitor's address (PLAYGROUND_CLIENT_IP_HEADER); it is never
read unless configured, because anyone can send it. Of X-Forwarded-For only the right-most hop
is trusted: it is the one the proxy appended. The front door (an ASGI middleware) and the fair
queue (a page run, through st.context) both ask this module, so they count the same clients.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

LOCAL = "localhost"  # a loopback visitor (Streamlit's st.context reports no address for one)
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def identity(header: str, headers: Mapping[str, str], peer: str | None) -> str:
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
    raw: Iterable[tuple[bytes, bytes]] = scope.get("headers") or ()  # type: ignore[assignment]
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw} if header else {}
    client: tuple[str, int] | list | None = scope.get("client")  # type: ignore[assignment]
    return identity(header, headers, client[0] if client else None)


TOKEN_PREFIX = "token:"


def tokens(text: str) -> dict[str, str]:
    """PLAYGROUND_API_TOKENS ("ci=SECRET, bot=OTHER") as secret -> name."""
    pairs = (part.strip().partition("=") for part in text.split(",") if part.strip())
    return {secret.strip(): name.strip() for name, _eq, secret in pairs if secret.strip()}


def bearer(scope: Mapping[str, object]) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header, if the request has one."""
    raw: Iterable[tuple[bytes, bytes]] = scope.get("headers") or ()  # type: ignore[assignment]
    for key, value in raw:
        if key.lower() == b"authorization":
            scheme, _sp, token = value.decode("latin-1").strip().partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return None


def of_api_scope(header: str, known_tokens: Mapping[str, str], scope: Mapping[str, object]) -> str:
    """An API request's client: a known token is its own client (an operator gives a CI job
    its own share of the limits); anything else counts as its address, as the page does."""
    token = bearer(scope)
    if token and token in known_tokens:
        return TOKEN_PREFIX + known_tokens[token]
    return of_scope(header, scope)
