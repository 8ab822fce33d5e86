"""Client identity: the peer address, or the operator's header, never a header unconfigured."""

from __future__ import annotations

from playground.front_door.identity import identity, of_scope


def test_the_client_header_is_ignored_unless_configured():
    forged = {"X-Forwarded-For": "203.0.113.7"}
    assert identity("", forged, "198.51.100.2") == "198.51.100.2"  # not configured
    assert identity("", forged, None) == "localhost"


def test_only_the_right_most_forwarded_hop_is_trusted():
    headers = {"x-forwarded-for": "203.0.113.66, 203.0.113.7"}  # first hop forgeable
    assert identity("X-Forwarded-For", headers, "10.0.0.1") == "203.0.113.7"
    assert identity("X-Real-IP", {"X-Real-IP": "203.0.113.9"}, "10.0.0.1") == "203.0.113.9"
    assert identity("X-Real-IP", {}, "10.0.0.1") == "10.0.0.1"  # header missing: peer


def test_a_loopback_peer_is_the_one_local_client_as_st_context_reports_it():
    # st.context gives no address for a loopback visitor; the door sees 127.0.0.1: one client.
    assert identity("", {}, "127.0.0.1") == identity("", {}, None) == "localhost"
    assert identity("", {}, "::1") == "localhost"


def test_an_asgi_scope_gives_the_same_identity_as_its_headers():
    scope = {"headers": [(b"x-forwarded-for", b"198.51.100.1, 203.0.113.5")], "client": ("10.0.0.3", 5555)}
    assert of_scope("X-Forwarded-For", scope) == "203.0.113.5"
    assert of_scope("", scope) == "10.0.0.3"  # header not trusted
    assert of_scope("X-Forwarded-For", {"headers": [], "client": None}) == "localhost"
