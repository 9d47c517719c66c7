"""Who the client is: the peer's address, or what a trusted proxy in front says it is.

`X-Forwarded-For` and `X-Forwarded-Proto` are believed only when the peer is
one of `PAPERCHAT_TRUSTED_PROXIES` (addresses or networks, comma-separated);
by default none is, and the headers are ignored everywhere. `ClientAddress`
rewrites the request's `client` and `scheme` once, outermost, so the rate
limits, the logs and the Secure flag of the session cookie all see the same
client. `Forwarded` is never read.

uvicorn's own handling of these headers must be off: left on (its default),
it believes any client on 127.0.0.1 and the peer is lost before the app can
judge it. `paperchat serve` runs it with `proxy_headers=False`, and the app
factory turns it off in the uvicorn that loads it (`uvicorn --factory
chat.service.app:create_app_from_env`). Wherever a server in front still set
the client from a header the app does not trust (the client is an address
`X-Forwarded-For` or `Forwarded` names, and the peer is no trusted proxy),
the request counts as from an unknown client, one for all such requests,
and the operator is told once in the log: a forged header never picks the
address the limits count.

Behind trusted proxies the client is the last address of `X-Forwarded-For`
that is not itself a trusted proxy: each proxy appends the address it saw,
so only the entries added by trusted hops can be believed.
"""

from __future__ import annotations

import inspect
import ipaddress
import logging
import sys
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger("paperchat.proxies")

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


def _host(entry: str) -> str:
    """The address of a forwarded entry: `1.2.3.4`, `1.2.3.4:80`, `[::1]:80`, `"[::1]"`."""
    entry = entry.strip().strip('"')
    if entry.startswith("["):
        return entry[1:].partition("]")[0]
    return entry.partition(":")[0] if entry.count(":") == 1 else entry


def forwarded_hosts(scope: Scope) -> set[str]:
    """Every address the request's `X-Forwarded-For` and `Forwarded` (`for=`) name."""
    hosts = {_host(entry) for entry in (_header(scope, b"x-forwarded-for") or "").split(",")}
    for element in (_header(scope, b"forwarded") or "").replace(",", ";").split(";"):
        name, _, value = element.partition("=")
        if name.strip().lower() == "for":
            hosts.add(_host(value))
    return hosts - {""}


def turn_off_server_proxy_headers() -> None:
    """Stop the uvicorn that is loading the app factory from applying X-Forwarded-* itself.

    uvicorn wraps the app the factory returns in its proxy-headers middleware,
    on by default and believing 127.0.0.1; its `Config` is the caller loading
    the factory, and reads `proxy_headers` after the factory returns.
    """
    config_module = sys.modules.get("uvicorn.config")
    if config_module is None:
        return
    frame = inspect.currentframe()
    while frame is not None:
        config = frame.f_locals.get("self")
        if isinstance(config, config_module.Config):
            if config.proxy_headers:
                config.proxy_headers = False
                logger.info(
                    "uvicorn's proxy headers are off: X-Forwarded-For and X-Forwarded-Proto "
                    "are believed from PAPERCHAT_TRUSTED_PROXIES only"
                )
            return
        frame = frame.f_back


class ClientAddress:
    """Sets the request's client (and scheme) from trusted proxies' headers, else leaves them."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies
        self.warned = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self._resolve(scope)
        await self.app(scope, receive, send)

    def _resolve(self, scope: Scope) -> None:
        peer = scope.get("client")
        if not peer:
            return
        if not self.proxies.trusts(peer[0]):
            if peer[0] in forwarded_hosts(scope):
                self._forget_forwarded_client(scope)
            return
        forwarded_for = _header(scope, b"x-forwarded-for")
        client = self.proxies.client(peer[0], forwarded_for)
        if client != peer[0]:
            scope["client"] = (client, 0)
        proto = (_header(scope, b"x-forwarded-proto") or "").split(",")[-1].strip().lower()
        if proto in _SCHEMES:
            scope["scheme"] = proto

    def _forget_forwarded_client(self, scope: Scope) -> None:
        """A server in front took the client from a header the app does not trust: the
        peer is lost, so the request counts as from the one unknown client."""
        scope["client"] = None
        if not self.warned:
            self.warned = True
            logger.warning(
                "the server set the client address from X-Forwarded-For or Forwarded, which "
                "PAPERCHAT_TRUSTED_PROXIES does not trust: such requests count as one unknown "
                "client; turn the server's proxy headers off (uvicorn --no-proxy-headers, as "
                "`paperchat serve` runs it) and list the proxy in PAPERCHAT_TRUSTED_PROXIES"
            )
