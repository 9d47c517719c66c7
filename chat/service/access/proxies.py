"""Who the client is: the peer's address, or what a trusted proxy in front says it is.

`X-Forwarded-For` and `X-Forwarded-Proto` are believed only when the peer is
one of `PAPERCHAT_TRUSTED_PROXIES` (addresses or networks, comma-separated);
by default none is, and the headers are ignored everywhere. `ClientAddress`
rewrites the request's `client` and `scheme` once, outermost, so the rate
limits, the logs and the Secure flag of the session cookie all see the same
client. uvicorn's own handling of these headers is turned off (`paperchat
serve` runs it with `proxy_headers=False`): left on, it believes any client
on 127.0.0.1 and the original peer is lost before the app can judge it.

Behind trusted proxies the client is the last address of `X-Forwarded-For`
that is not itself a trusted proxy: each proxy appends the address it saw,
so only the entries added by trusted hops can be believed.
"""

from __future__ import annotations

import ipaddress
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_SCHEMES: Final = frozenset({"http", "https"})


def parse_trusted_proxies(text: str) -> tuple[Network, ...]:
    """`127.0.0.1, 10.0.0.0/8, ::1` as networks; ValueError naming a bad entry."""
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError as e:
            raise ValueError(f"not an address or network: {entry!r}") from e
    return tuple(networks)


class TrustedProxies:
    def __init__(self, networks: tuple[Network, ...]) -> None:
        self.networks = networks

    def trusts(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def client(self, peer: str, forwarded_for: str | None) -> str:
        """The client's address: the peer, unless a trusted peer forwarded for someone."""
        if not forwarded_for or not self.trusts(peer):
            return peer
        client = peer
        for entry in reversed([part.strip() for part in forwarded_for.split(",")]):
            try:
                ipaddress.ip_address(entry)
            except ValueError:
                break  # a garbled hop: believe no further than the last good one
            client = entry
            if not self.trusts(entry):
                break
        return client


def _header(scope: Scope, name: bytes) -> str | None:
    values = [value for key, value in scope["headers"] if key == name]
    return ",".join(v.decode("latin-1") for v in values) if values else None


class ClientAddress:
    """Sets the request's client (and scheme) from trusted proxies' headers, else leaves them."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.proxies.networks:
            self._resolve(scope)
        await self.app(scope, receive, send)

    def _resolve(self, scope: Scope) -> None:
        peer = scope.get("client")
        if not peer or not self.proxies.trusts(peer[0]):
            return
        forwarded_for = _header(scope, b"x-forwarded-for")
        client = self.proxies.client(peer[0], forwarded_for)
        if client != peer[0]:
            scope["client"] = (client, 0)
        proto = (_header(scope, b"x-forwarded-proto") or "").split(",")[-1].strip().lower()
        if proto in _SCHEMES:
            scope["scheme"] = proto
