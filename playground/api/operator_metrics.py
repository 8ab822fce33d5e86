"""The operator's door: GET /metrics, the server's numbers in Prometheus' text format
(runs/metrics.py), for the addresses PLAYGROUND_METRICS_ALLOW names (default: this machine
only). The address is the connection's own peer, never a forwarded header a client can write;
the public proxy does not pass /metrics at all (deploy/proxy/nginx.conf.template)."""

from __future__ import annotations

import functools
import ipaddress

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..contract.config import Settings
from ..runs import metrics

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


async def metrics_page(request: Request) -> Response:
    peer = request.client.host if request.client else ""
    if not allowed(peer, Settings.from_env().metrics_allow):
        return PlainTextResponse(
            "403: /metrics answers only the addresses in PLAYGROUND_METRICS_ALLOW\n", status_code=403
        )
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)


def allowed(peer: str, setting: str) -> bool:
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:  # no peer address (a unix socket, a test client): not allowed
        return False
    return any(address in network for network in networks(setting))


@functools.cache
def networks(setting: str) -> tuple[Network, ...]:
    """'127.0.0.1/32,10.0.0.0/8' as networks; an entry that is not one is skipped."""
    found = []
    for part in setting.split(","):
        try:
            found.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            continue
    return tuple(found)
