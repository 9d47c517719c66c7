"""Every HTML page the app serves, `/docs` included, carries the pages' security headers."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, Page, Request, expect
from starlette.routing import Route

from chat.service.web.discovery.llms import every_route
from chat.service.web.rendering import PAGE_HEADERS
from tests.chat.service.web.conftest import PAPER_ID
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)

# What each path parameter of a page is filled with: a paper and an author of the index.
_PARAMETERS = {"arxiv_id": PAPER_ID, "paper_id": PAPER_ID, "name": "Mahdi Abavisani", "page": "1"}


def _get_paths(web: Api) -> list[str]:
    """A path for every GET route outside the JSON APIs, its parameters filled in."""
    paths = []
    for route in every_route(web.app.routes):
        if not isinstance(route, Route) or "GET" not in (route.methods or set()):
            continue
        if route.path.startswith(("/api/", "/v1/")):
            continue
        values = {name: _PARAMETERS.get(name, "x") for name in route.param_convertors}
        paths.append(route.path_format.format(**values))
    return paths


def test_every_html_page_sends_the_security_headers(web: Api) -> None:
    with web.client() as client:
        responses = {path: client.get(path, follow_redirects=True) for path in _get_paths(web)}
    pages = {
        path: response.headers
        for path, response in responses.items()
        if response.headers.get("content-type", "").startswith("text/html")
    }

    assert {"/", "/docs", f"/papers/{PAPER_ID}", "/authors/Mahdi Abavisani"} <= set(pages)
    for path, headers in pages.items():
        policy = headers.get("content-security-policy", "")
        assert "frame-ancestors 'self'" in policy, path
        assert "default-src 'self'" in policy, path
        assert "unsafe-inline" not in policy, path
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("referrer-policy") == PAGE_HEADERS["Referrer-Policy"], path


def test_docs_page_works_under_its_policy_with_the_apps_files_only(web: Api, page: Page) -> None:
    refused: list[str] = []
    requested: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if _is_refusal(m) else None)
    page.on("request", lambda r: requested.append(_url(r)))

    page.goto(f"{web.base_url}/docs")

    expect(page.locator(".opblock").first).to_be_visible(timeout=30_000)
    expect(page.locator(".title")).to_contain_text("paperchat")
    assert refused == []
    assert requested
    assert all(url.startswith(web.base_url) or url.startswith("data:") for url in requested)


def _is_refusal(message: ConsoleMessage) -> bool:
    return "Content Security Policy" in message.text or message.type == "error"


def _url(request: Request) -> str:
    return request.url


def test_the_api_documentation_sends_the_security_headers(web: Api) -> None:
    with web.client() as client:
        responses = {
            path: client.get(path)
            for path in ("/docs", "/openapi.json", "/redoc", "/docs/assets/secrets.txt")
        }

    assert [r.status_code for r in responses.values()] == [200, 200, 404, 404]
    assert responses["/openapi.json"].json()["info"]["title"] == "paperchat"
    assert "/docs" in responses["/redoc"].json()["detail"]
    for path, response in responses.items():
        headers = response.headers
        policy = headers.get("content-security-policy", "")
        assert "unsafe-inline" not in policy, path
        assert "frame-ancestors" in policy, path
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("referrer-policy") == PAGE_HEADERS["Referrer-Policy"], path
    assert "default-src 'none'" in responses["/openapi.json"].headers["content-security-policy"]
