"""`/llms.txt`: generated from the app's routes, MCP tools and settings, in the llms.txt format."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from chat.service.openai.errors import error_payload
from chat.service.web.discovery.llms import llms_text
from chat.settings import Settings, env_name
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)

LINK = re.compile(r"^- \[(?P<label>[^\]]+)\]\((?P<url>https?://[^)\s]+)\)(?:: .+)?$")
# Routes outside the OpenAPI document.
PAGES = ("/", "/papers/{arxiv_id}", "/papers/{arxiv_id}/bibtex", "/dock.js", "/llms.txt")


def fetch(api: Api) -> str:
    with api.client() as anonymous:
        response = anonymous.get("/llms.txt")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert "Accept" in response.headers["vary"].split(", ")  # Markdown, as the pages by Accept
    return response.text


def test_it_has_the_llms_txt_shape(api: Api) -> None:
    text = fetch(api)

    lines = text.splitlines()
    assert lines[0] == "# paperchat"
    assert lines[2].startswith("> Cited answers from ")
    assert sum(line.startswith("# ") for line in lines) == 1
    sections = [line for line in lines if line.startswith("## ")]
    assert sections == [
        "## JSON API", "## OpenAI-compatible API", "## MCP", "## Pages and operations",
        "## Optional",
    ]  # fmt: skip
    for line in lines:
        if line.startswith("- ["):
            assert LINK.match(line), line
            assert LINK.match(line)["url"].startswith(api.base_url)  # type: ignore[index]  # matched


def test_every_public_route_and_every_tool_is_listed(api: Api) -> None:
    documented = api.app.openapi()["paths"]

    text = fetch(api)

    assert len(documented) > 15
    for path, operations in documented.items():
        for method in operations:
            assert re.search(rf"\[([A-Z]+, )*{method.upper()}(, [A-Z]+)* {re.escape(path)}\]", text)
    for page in PAGES:
        assert f" {page}](" in text, page
    for tool in ("search_papers", "get_paper", "retrieve", "ask", "compare_papers"):
        assert f"- `{tool}`: " in text
    assert f"[POST /mcp]({api.base_url}/mcp)" in text
    assert f"[OpenAPI document]({api.base_url}/openapi.json)" in text


def test_the_index_citations_and_limits_come_from_the_server(api: Api) -> None:
    settings = api.services.settings
    stats = api.services.index.catalog.stats()

    text = fetch(api)

    assert f"Cited answers from {stats['papers']} arXiv papers" in text
    assert f"full text of {stats['papers_with_fulltext']} PDFs" in text
    assert "`[arXiv:2203.12533]`" in text
    assert "dropped_citations" in text
    for name in ("max_question_chars", "max_body_bytes", "rate_limit", "search_rate_limit"):
        assert f"`{env_name(name)}` = {getattr(settings, name)}:" in text
    assert "PAPERCHAT_MAX_RECORD_BYTES" not in text


def test_a_route_the_app_gains_is_listed_without_editing_anything() -> None:
    app = FastAPI()

    @app.get("/api/widgets/{widget_id}", tags=["widgets"])
    def widget(widget_id: str) -> dict[str, str]:
        """One widget, by id."""
        return {"id": widget_id}

    stats = {"papers": 3, "papers_with_fulltext": 1}
    text = llms_text(app, Settings(), "http://127.0.0.1:1", stats, tools=[])

    assert "- [GET /api/widgets/{widget_id}](http://127.0.0.1:1/docs#/widgets/" in text
    assert ": One widget, by id." in text


def test_it_states_both_error_shapes_as_the_handlers_answer_them() -> None:
    stats = {"papers": 3, "papers_with_fulltext": 1}

    text = llms_text(FastAPI(), Settings(), "http://127.0.0.1:1", stats, tools=[])

    _, api_error = error_payload("/api/papers/9999.99999", 404, "no paper")
    status, v1_error = error_payload("/v1/chat/completions", 422, "messages: required")
    fields = ", ".join(f'"{name}"' for name in v1_error["error"])
    assert list(api_error) == ["detail"]
    assert '`{"detail": "..."}` everywhere but under `/v1`' in text
    assert fields == '"message", "type", "param", "code"'
    assert f'`{{"error": {{{fields}}}}}`' in text
    assert f"there an invalid request is a {status}, elsewhere a 422" in text


def test_the_site_footer_links_it(api: Api) -> None:
    with api.client() as anonymous:
        page = anonymous.get("/")

    assert '<a href="/llms.txt">llms.txt</a>' in page.text


def test_links_name_the_configured_address_not_the_requests_host(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    public = "https://papers.example.org"
    settings = api.services.settings.model_copy(update={"public_url": f"{public}/"})
    monkeypatch.setattr(api.services, "settings", settings)

    with api.client(Host="evil.example.com") as client:
        text = client.get("/llms.txt").text

    urls = [m["url"] for line in text.splitlines() if (m := LINK.match(line))]
    assert len(urls) > 15
    assert all(url.startswith(f"{public}/") for url in urls)
    assert "evil.example.com" not in text


def test_without_an_address_configured_links_name_the_request_s_and_none_reads_none(
    api: Api,
) -> None:
    text = fetch(api)

    urls = [m["url"] for line in text.splitlines() if (m := LINK.match(line))]
    assert all(url.startswith(f"{api.base_url}/") for url in urls)
    assert not [url for url in urls if "None" in url]
    assert f"- [API reference]({api.base_url}/docs): the same, rendered" in text.splitlines()
