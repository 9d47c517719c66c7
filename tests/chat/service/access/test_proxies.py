"""Which address is the client's: the peer's, or what trusted proxies forwarded."""

from __future__ import annotations

import pytest

from chat.service.access.proxies import TrustedProxies, parse_trusted_proxies

pytestmark = pytest.mark.timeout(10)

BEHIND_TWO = TrustedProxies(parse_trusted_proxies("10.0.0.0/8, 192.0.2.1"))


def test_without_trusted_proxies_the_header_is_ignored() -> None:
    proxies = TrustedProxies(parse_trusted_proxies(""))

    client = proxies.client("127.0.0.1", "203.0.113.9")

    assert client == "127.0.0.1"


def test_an_untrusted_peer_cannot_forward_for_anyone() -> None:
    client = BEHIND_TWO.client("198.51.100.4", "203.0.113.9")

    assert client == "198.51.100.4"


def test_the_client_is_the_last_address_no_trusted_proxy_added() -> None:
    # The client forged the first entry; the trusted proxies added the other two.
    client = BEHIND_TWO.client("10.1.2.3", "1.2.3.4, 203.0.113.9, 192.0.2.1")

    assert client == "203.0.113.9"


def test_a_garbled_hop_stops_the_walk_at_the_last_good_address() -> None:
    client = BEHIND_TWO.client("10.1.2.3", "203.0.113.9, not-an-address, 192.0.2.1")

    assert client == "192.0.2.1"


def test_ipv6_proxies_and_clients() -> None:
    proxies = TrustedProxies(parse_trusted_proxies("::1"))

    client = proxies.client("::1", "2001:db8::7")

    assert client == "2001:db8::7"


def test_a_bad_entry_is_named() -> None:
    with pytest.raises(ValueError, match=r"not an address or network: 'proxy\.local'"):
        parse_trusted_proxies("127.0.0.1, proxy.local")
