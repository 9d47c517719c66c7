"""`/mcp` from a browser on another origin: CORS lets the listed origins in, with the MCP
headers, and no one else."""

from __future__ import annotations

import pytest

from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)

PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version",
}


def test_a_listed_origin_may_call_mcp_with_its_headers(web: Api, host_origin: str) -> None:
    with web.client() as client:
        listed = client.options("/mcp", headers={"Origin": host_origin, **PREFLIGHT})
        other = client.options("/mcp", headers={"Origin": "https://evil.example", **PREFLIGHT})
        call = client.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={
                "Origin": host_origin,
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
                "Authorization": f"Bearer {web.key_for(web.new_user())}",
            },
        )

    assert listed.status_code == 200
    assert listed.headers["access-control-allow-origin"] == host_origin
    allowed = listed.headers["access-control-allow-headers"].lower()
    assert "mcp-protocol-version" in allowed
    assert "authorization" in allowed
    assert other.status_code == 400
    assert "access-control-allow-origin" not in other.headers
    assert call.status_code == 200
    assert call.headers["access-control-allow-origin"] == host_origin
    assert {t["name"] for t in call.json()["result"]["tools"]} >= {"ask", "get_paper"}


def test_a_listed_origin_may_rename_a_collection(web: Api, host_origin: str) -> None:
    preflight = {"Access-Control-Request-Method": "PATCH", **{
        "Access-Control-Request-Headers": "authorization,content-type"}}  # fmt: skip
    with web.client() as client:
        listed = client.options("/api/collections/1", headers={"Origin": host_origin, **preflight})

    assert listed.status_code == 200
    assert "PATCH" in listed.headers["access-control-allow-methods"]
