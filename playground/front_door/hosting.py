"""Streamlit set up for hosting, where `.streamlit/config.toml` cannot say it: the operator's
origins, no external-address lookup on a request path, and no Nagle delay on its connections."""

from __future__ import annotations

import os
import socket

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


def _external_ip_found_at_start() -> str | None:
    return net_util._external_ip


def no_delay() -> int:
    """Turns Nagle's algorithm off for the connections this process's TCP listeners accept, and
    returns how many listeners it set (0 where /proc is missing: not Linux).

    Streamlit binds its listening socket itself, with protocol 0, and asyncio sets TCP_NODELAY
    only on sockets whose protocol is IPPROTO_TCP, so it never did. Then every answer on a kept-
    alive connection (each of the ~40 scripts a first visit loads, six connections at a time)
    and each websocket frame written behind an unacknowledged one waited for the browser's
    delayed ACK: 40 ms each (`bench/bench_ui.py`, docs/performance.md). Linux copies the option
    from a listening socket to each connection it accepts, so this is called once, at start,
    after the server bound its socket (app.py's lifespan)."""
    try:
        descriptors = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return 0
    count = 0
    for descriptor in descriptors:
        try:
            copy = os.dup(descriptor)
        except OSError:
            continue  # closed since the listing
        try:
            sock = socket.socket(fileno=copy)  # family and type read from the fd
        except OSError:
            os.close(copy)  # not a socket
            continue
        with sock:
            try:
                if (
                    sock.family in (socket.AF_INET, socket.AF_INET6)
                    and sock.type == socket.SOCK_STREAM
                    and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                ):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    count += 1
            except OSError:
                continue
    return count
