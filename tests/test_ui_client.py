"""Client identity: the peer address, or the operator's header, never a header unconfigured."""
from __future__ import annotations

from playground.ui.client import identity


def test_the_client_header_is_ignored_unless_configured():
    forged = {"X-Forwarded-For": "203.0.113.7"}
    assert identity("", forged, "198.51.100.2") == "198.51.100.2"      # not configured
    assert identity("", forged, None) == "localhost"


def test_only_the_right_most_forwarded_hop_is_trusted():
    headers = {"x-forwarded-for": "203.0.113.66, 203.0.113.7"}        # first hop forgeable
    assert identity("X-Forwarded-For", headers, "10.0.0.1") == "203.0.113.7"
    assert identity("X-Real-IP", {"X-Real-IP": "203.0.113.9"}, "10.0.0.1") == "203.0.113.9"
    assert identity("X-Real-IP", {}, "10.0.0.1") == "10.0.0.1"       # header missing: peer
