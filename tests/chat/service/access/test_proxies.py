"""Which address is the client's: the peer's, or what trusted proxies forwarded."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import STDOUT

import httpx
import pytest
from starlette.types import Message, Receive, Scope, Send

from chat.service.access.proxies import (
    ClientAddress,
    TrustedProxies,
    forwarded_hosts,
    parse_trusted_proxies,
)
from chat.service.bootstrap import prepare_service
from chat.settings import Settings
from tests.support.data import ROOT
from tests.support.running.net import unused_port

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


def _forwarded_hosts(headers: dict[str, str]) -> set[str]:
    scope = {"headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    return forwarded_hosts(scope)


def test_the_addresses_forwarding_headers_name_are_read_with_or_without_ports() -> None:
    hosts = _forwarded_hosts(
        {
            "X-Forwarded-For": "203.0.113.9:4711, [2001:db8::7]:80",
            "Forwarded": 'for=198.51.100.4;proto=https, for="[2001:db8::8]"',
        }
    )

    assert hosts == {"203.0.113.9", "2001:db8::7", "198.51.100.4", "2001:db8::8"}


@contextmanager
def _plain_uvicorn(data_dir: Path, log: Path) -> Iterator[str]:
    """`uvicorn --factory chat.service.app:create_app_from_env` with uvicorn's defaults
    (its proxy headers on, believing 127.0.0.1), in a child process: its base URL."""
    settings = Settings(data_dir=data_dir, login_address_rate_limit="3/minute")
    prepare_service(settings)
    port = unused_port()
    env = os.environ | {
        "PAPERCHAT_DATA_DIR": str(data_dir),
        "PAPERCHAT_LOGIN_ADDRESS_RATE_LIMIT": settings.login_address_rate_limit,
        "PAPERCHAT_LLM": "extractive",
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "chat.service.app:create_app_from_env",
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with log.open("wb") as output:
        server = subprocess.Popen(command, env=env, cwd=ROOT, stdout=output, stderr=STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            if not _wait_until_up(url, server):
                pytest.fail(f"uvicorn did not start: {log.read_text(errors='replace')}")
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


def _wait_until_up(url: str, server: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and server.poll() is None:
        try:
            return httpx.get(f"{url}/api/health", timeout=2).status_code == 200
        except httpx.TransportError:
            time.sleep(0.2)
    return False


@pytest.mark.timeout(180)
def test_under_plain_uvicorn_a_forged_forwarded_for_does_not_change_the_limited_address(
    tmp_path: Path,
) -> None:
    body = {"email": "nobody@example.org", "password": "a wrong password"}
    forged = [
        {"X-Forwarded-For": "203.0.113.1"},
        {"X-Forwarded-For": "203.0.113.2", "X-Forwarded-Proto": "https"},
        {"Forwarded": "for=203.0.113.3"},
        {"X-Forwarded-For": "203.0.113.4"},
    ]

    with _plain_uvicorn(tmp_path / "data", tmp_path / "uvicorn.log") as url:
        codes = [
            httpx.post(f"{url}/api/auth/login", json=body, headers=h, timeout=20).status_code
            for h in forged
        ]
        unforged = httpx.post(f"{url}/api/auth/login", json=body, timeout=20)

    assert codes == [401, 401, 401, 429], "every forged address counted as the peer's"
    assert unforged.status_code == 429, "the peer, 127.0.0.1, is the address that was counted"


async def _client_seen(proxies: str, client: tuple[str, int], headers: dict[str, str]) -> object:
    """The client the app behind `ClientAddress` sees for a request from `client`."""
    seen: list[object] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["client"])

    scope = {
        "type": "http",
        "client": client,
        "scheme": "http",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    await ClientAddress(app, TrustedProxies(parse_trusted_proxies(proxies)))(
        scope, _no_body, _no_send
    )
    return seen[0]


async def _no_body() -> Message:
    return {"type": "http.request", "body": b""}


async def _no_send(message: Message) -> None:
    return None


async def test_a_client_a_server_in_front_took_from_an_untrusted_header_is_unknown() -> None:
    # What uvicorn's proxy headers make of a request from 127.0.0.1 forging its address.
    forged = await _client_seen("", ("203.0.113.9", 0), {"X-Forwarded-For": "203.0.113.9"})
    from_forwarded = await _client_seen("", ("203.0.113.9", 0), {"Forwarded": "for=203.0.113.9"})
    plain = await _client_seen("", ("198.51.100.4", 5555), {"X-Forwarded-For": "203.0.113.9"})

    assert forged is None
    assert from_forwarded is None
    assert plain == ("198.51.100.4", 5555), "a peer's own address is kept"
