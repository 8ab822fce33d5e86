"""The operator's door: GET /metrics, the server's numbers in Prometheus' text format
(runs/metrics.py), for the addresses PLAYGROUND_METRICS_ALLOW names (default: this machine
only): networks, or host names (compose's `prometheus` service, whose address the compose
network picks). The address is the connection's own peer, never a forwarded header a client can
write; the public proxy does not pass /metrics at all (deploy/proxy/nginx.conf.template).

Host names are looked up by a Resolver on a thread of its own, every REFRESH_S, never on a
request's path: a scrape compares its peer with the addresses last found, so a resolver that
takes seconds (or never answers) delays no scrape and no other request."""

from __future__ import annotations

import functools
import ipaddress
import logging
import re
import socket
import threading
from collections.abc import Callable, Iterable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..contract.config import Settings
from ..runs import metrics

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")
REFRESH_S = 10.0  # how stale an address may be: a restarted service's new one counts this soon
MAX_NAMES = 16  # looked up at most; the setting is the operator's, but a typo is not a flood
_LOG = logging.getLogger(__name__)


async def metrics_page(request: Request) -> Response:
    peer = request.client.host if request.client else ""
    setting = Settings.from_env().metrics_allow
    if not allowed(peer, setting) and not named(peer, setting):
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


def peer_address(peer: str) -> Address | None:
    """The peer's address; an IPv4 peer of a dual-stack socket ('::ffff:127.0.0.1', as
    Streamlit's server reports this machine's own scrape) as the IPv4 address it is."""
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def named(peer: str, setting: str, resolver: Resolver | None = None) -> bool:
    """Whether a host name in the setting resolved to the peer's address when last looked up.
    A name not looked up yet, or that did not resolve (its service is not running), allows
    nothing. Never waits: the lookups are the resolver's, on its own thread."""
    address = peer_address(peer)
    names = hosts(setting)
    if address is None or not names:
        return False
    return address in (resolver or RESOLVER).addresses(names)


def lookup(host: str) -> list[str]:
    """The addresses a host name resolves to now (blocking: the resolver's thread calls it)."""
    return [str(info[4][0]) for info in socket.getaddrinfo(host, None)]


class Resolver:
    """Host names looked up on a thread of its own, again every `refresh_s`; `addresses()`
    reads what was last found and never waits. The first time a name is asked for, its lookup
    is started, and until it answers the name allows nothing. `lookup` is the seam: a test
    gives one that takes as long as it likes."""

    def __init__(
        self,
        lookup: Callable[[str], Iterable[str]] = lookup,
        refresh_s: float = REFRESH_S,
        max_names: int = MAX_NAMES,
    ) -> None:
        self.lookup, self.refresh_s, self.max_names = lookup, refresh_s, max_names
        self._found: dict[str, frozenset[Address]] = {}
        self._names: list[str] = []  # in the order first asked for
        self._lock = threading.Lock()
        self._asked = threading.Event()  # a new name: look it up now, not at the next refresh
        self._thread: threading.Thread | None = None
        self.lookups = 0  # lookups finished (answered or failed), for tests and the bench
        self._closed = False

    def addresses(self, names: Iterable[str]) -> frozenset[Address]:
        """The addresses these names had when last looked up (none for a name not yet)."""
        found: set[Address] = set()
        new = False
        with self._lock:
            for name in names:
                if name in self._found:
                    found |= self._found[name]
                elif name not in self._names and len(self._names) < self.max_names:
                    self._names.append(name)
                    new = True
            if new and self._thread is None:
                self._thread = threading.Thread(target=self._run, name="metrics-resolver", daemon=True)
                self._thread.start()
        if new:
            self._asked.set()
        return frozenset(found)

    def watch(self, names: Iterable[str]) -> None:
        """Starts looking these names up (at server start: the first scrape finds them known)."""
        self.addresses(names)

    def close(self) -> None:
        """Stops the thread after the lookup it is in, if any (tests; the server's lives on)."""
        self._closed = True
        self._asked.set()

    def _run(self) -> None:
        while not self._closed:
            self._asked.clear()
            with self._lock:
                names = list(self._names)
            for name in names:
                try:
                    answer = frozenset(a for a in map(peer_address, self.lookup(name)) if a is not None)
                except (OSError, UnicodeError):  # no such name, no resolver: it allows nothing
                    answer = frozenset()
                except Exception:  # noqa: BLE001 - a bug, or the resolver's: the thread goes on
                    _LOG.exception("metrics: looking up %s failed", name)
                    answer = frozenset()
                with self._lock:
                    self._found[name] = answer
                    self.lookups += 1
            self._asked.wait(self.refresh_s)


RESOLVER = Resolver()


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
