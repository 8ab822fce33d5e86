"""Streamlit set up for hosting, where `.streamlit/config.toml` cannot say it: the operator's
origins, and no external-address lookup on a request path."""
from __future__ import annotations

from streamlit import config, net_util

from .middleware import origins


def configure(allowed_origins: str) -> None:
    """Called once when the server imports app.py, before the first visitor."""
    allowed = list(origins(allowed_origins))
    if allowed:
        # Streamlit's own CORS and websocket-origin checks admit the same origins as the door.
        config.set_option("server.corsAllowedOrigins", allowed, "PLAYGROUND_ALLOWED_ORIGINS")
    # Streamlit's origin check asks for the server's external address (an HTTP request to a
    # public host, after DNS) for every origin it does not know, on the server's event loop,
    # and caches only a success: without Internet each ask froze the whole server for ~20 s.
    # The door refuses foreign origins first; admitted ones now get what start-up found, if any.
    net_util.get_external_ip = _external_ip_found_at_start


def _external_ip_found_at_start() -> "str | None":
    return net_util._external_ip
