"""The operator's door: GET /metrics, the server's numbers in Prometheus' text format
(runs/metrics.py), for the addresses PLAYGROUND_METRICS_ALLOW names (default: this machine
only): networks, or host names looked up when asked (compose's `prometheus` service, whose
address the compose network picks). The address is the connection's own peer, never a
forwarded header a client can write; the public proxy does not pass /metrics at all
(deploy/proxy/nginx.conf.template)."""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import re

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..contract.config import Settings
from ..runs import metrics

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")
LOOKUP_S = 1.0  # a slow resolver answers 403, not a hung scrape


async def metrics_page(request: Request) -> Response:
    peer = request.client.host if request.client else ""
    setting = Settings.from_env().metrics_allow
    if not allowed(peer, setting) and not await named(peer, setting):
        return PlainTextResponse(
            "403: /metrics answers only the addresses in PLAYGROUND_METRICS_ALLOW\n", status_code=403
        )
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)


def allowed(peer: str, setting: str) -> bool:
    address = peer_address(peer)
    if address is None:  # no peer address (a unix socket, a test client): not allowed
        return False
    return any(address in network for network in networks(setting))


def peer_address(peer: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The peer's address; an IPv4 peer of a dual-stack socket ('::ffff:127.0.0.1', as
    Streamlit's server reports this machine's own scrape) as the IPv4 address it is."""
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


async def named(peer: str, setting: str) -> bool:
    """Whether a host name in the setting resolves to the peer's address now. A name that does
    not resolve (its service is not running) allows nothing."""
    address = peer_address(peer)
    if address is None:
        return False
    loop = asyncio.get_running_loop()
    for host in hosts(setting):
        try:
            found = await asyncio.wait_for(loop.getaddrinfo(host, None), LOOKUP_S)
        except (OSError, asyncio.TimeoutError):
            continue
        if any(peer_address(str(info[4][0])) == address for info in found):
            return True
    return False


def networks(setting: str) -> tuple[Network, ...]:
    """'127.0.0.1/32,10.0.0.0/8,prometheus': its networks."""
    return _entries(setting)[0]


def hosts(setting: str) -> tuple[str, ...]:
    """'127.0.0.1/32,prometheus': its host names (letters, digits, dots and hyphens)."""
    return _entries(setting)[1]


@functools.cache
def _entries(setting: str) -> tuple[tuple[Network, ...], tuple[str, ...]]:
    """The setting's networks, and its other entries that are host names; the rest is skipped."""
    found: list[Network] = []
    names: list[str] = []
    for part in (p.strip() for p in setting.split(",")):
        try:
            found.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            if HOST_NAME.fullmatch(part):
                names.append(part)
    return tuple(found), tuple(names)
