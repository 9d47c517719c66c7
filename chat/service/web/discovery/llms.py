"""`/llms.txt`: what this server offers, for language models and agents, in the llms.txt
format (an H1, a blockquote summary, then sections of links).

Written on each request from what the app really has: every route it
serves (the JSON API, `/v1`, the pages), the MCP tools with their
descriptions, the limits and rate limits of its settings (in the words of
their descriptions), and the size of its index. Nothing is listed by hand,
so nothing can go stale.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import anyio
import fastapi.routing
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import PlainTextResponse
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute, Route

from chat.rag.citations.guard import CITATION_PATTERN
from chat.service.mcp.endpoint import MCP_PATH
from chat.service.openai.errors import OPENAI_PREFIX, error_body, openai_status
from chat.service.routes.deps import ServicesDep
from chat.service.web.address import site_address
from chat.service.web.discovery.api_docs import DOCS_PATH, OPENAPI_PATH, REDOC_PATH
from chat.service.web.markdown import MARKDOWN_TYPE, VARY_ACCEPT
from chat.settings import Settings, env_name

router = APIRouter(tags=["llms"])

LLMS_PATH = "/llms.txt"
# The documentation FastAPI serves itself: linked under "Optional", not as routes.
_DOCUMENTATION = {OPENAPI_PATH, DOCS_PATH, "/docs/oauth2-redirect", REDOC_PATH}
# Settings that bound what a client may send or get; any new `*_rate_limit` or `max_*`
# setting is listed too. Ingest-side bounds are not the API's.
_NOT_CLIENT_LIMITS = {"max_record_bytes", "max_password_checks", "pdf_max_mb"}


@router.get(LLMS_PATH, response_class=PlainTextResponse, include_in_schema=False)
async def llms_txt(request: Request, services: ServicesDep) -> PlainTextResponse:
    """This server described for language models: its API, /v1, /mcp, citations, limits."""
    # The configured address: a request's own Host header is whatever the client wrote.
    base = site_address(request, services.settings)
    stats = await anyio.to_thread.run_sync(services.index.catalog.stats)
    tools = await request.app.state.mcp.server.list_tools()
    text = llms_text(request.app, services.settings, base, stats, tools)
    return PlainTextResponse(text, media_type=MARKDOWN_TYPE, headers=VARY_ACCEPT)


def llms_text(
    app: FastAPI, settings: Settings, base: str, stats: dict[str, int], tools: Iterable[Any]
) -> str:
    routes = list(_public_routes(app.routes))
    sections = [
        _summary(stats),
        _guide(),
        _limits(settings),
        _section("JSON API", (r for r in routes if r.path.startswith("/api/")), base),
        _section("OpenAI-compatible API", (r for r in routes if r.path.startswith("/v1/")), base),
        _mcp(base, tools),
        _section(
            "Pages and operations",
            (r for r in routes if not r.path.startswith(("/api/", "/v1/"))),
            base,
        ),
        _optional(app, base),
    ]
    return "\n\n".join(s for s in sections if s) + "\n"


def _public_routes(routes: Sequence[BaseRoute]) -> Iterator[Route]:
    """Every route the app answers but its documentation and MCP (which has its own section),
    those of included routers too."""
    for route in every_route(routes):
        if isinstance(route, Route) and route.path not in _DOCUMENTATION | {MCP_PATH}:
            yield route


def every_route(routes: Sequence[BaseRoute]) -> Iterator[BaseRoute]:
    """The app's routes, those of included routers too."""
    # FastAPI keeps an included router whole (0.16x) and walks it with `iter_route_contexts`;
    # older versions copy its routes into the app's.
    walk = getattr(fastapi.routing, "iter_route_contexts", None)
    if walk is None:
        yield from routes
        return
    for context in walk(routes):
        yield context.original_route


def _summary(stats: dict[str, int]) -> str:
    return (
        "# paperchat\n\n"
        f"> Cited answers from {stats['papers']} arXiv papers (their abstracts, and the full "
        f"text of {stats['papers_with_fulltext']} PDFs): search them, read them, retrieve "
        "passages, and ask questions whose answers cite their sources, over a JSON API, an "
        "OpenAI-compatible `/v1` and MCP at `/mcp`."
    )


def _errors() -> str:
    """The two shapes of an error, in the words of the handlers that answer them."""
    fields = ", ".join(f'"{name}"' for name in error_body(400, "")["error"])
    return (
        "Errors are JSON, with a status that says what went wrong: "
        f'`{{"detail": "..."}}` everywhere but under `{OPENAI_PREFIX}`, which answers '
        f'OpenAI\'s `{{"error": {{{fields}}}}}` so that OpenAI clients raise their typed '
        f"errors (there an invalid request is a {openai_status(422)}, elsewhere a 422)."
    )


def _guide() -> str:
    return (
        "Sign in with an API key, `Authorization: Bearer pc_...` (`POST /api/keys` or "
        f"`paperchat keys create EMAIL`); `/v1` and `/mcp` take keys only. {_errors()}\n\n"
        "Citations: answers cite sources as `[arXiv:2203.12533]` (the id without version) or "
        "`[doc:<id>]` for a document without an arXiv id (as a regular expression, "
        f"`{CITATION_PATTERN}`). "
        "Every citation in an answer names one of its sources; any other is removed from the "
        "text and listed in `dropped_citations`. When the sources do not cover a question, the "
        "answer says so instead of answering."
    )


def _limits(settings: Settings) -> str:
    lines = ["Limits of this server:", ""]
    for name in sorted(Settings.model_fields):
        is_limit = name.endswith("rate_limit") or name.startswith("max_")
        if not is_limit or name in _NOT_CLIENT_LIMITS:
            continue
        words = Settings.model_fields[name].description
        lines.append(f"- `{env_name(name)}` = {getattr(settings, name)}: {words}")
    return "\n".join(lines)


def _methods(route: Route) -> str:
    return ", ".join(sorted((route.methods or {"GET"}) - {"HEAD"}))


def _describe(route: Route) -> str:
    """The first paragraph of the route's docstring, or its name."""
    doc = inspect.getdoc(route.endpoint) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    return first or route.name.replace("_", " ")


def _link(route: Route, base: str) -> str:
    if isinstance(route, APIRoute) and route.include_in_schema:
        tag = route.tags[0] if route.tags else "default"
        return f"{base}{DOCS_PATH}#/{tag}/{route.unique_id}"
    return f"{base}{route.path_format}"


def _section(title: str, routes: Iterable[Route], base: str) -> str:
    lines = [f"## {title}", ""]
    for route in routes:
        lines.append(
            f"- [{_methods(route)} {route.path_format}]({_link(route, base)}): {_describe(route)}"
        )
    return "\n".join(lines)


def _mcp(base: str, tools: Iterable[Any]) -> str:
    lines = [
        "## MCP",
        "",
        f"- [POST {MCP_PATH}]({base}{MCP_PATH}): the Model Context Protocol over Streamable HTTP "
        "(stateless, JSON answers), with an API key; `paperchat mcp` serves the same tools "
        "over stdio. Read-only tools:",
    ]
    lines += [f"  - `{tool.name}`: {tool.description}" for tool in tools]
    return "\n".join(lines)


def _optional(app: FastAPI, base: str) -> str:
    return "\n".join(
        [
            "## Optional",
            "",
            f"- [OpenAPI document]({base}{OPENAPI_PATH}): every route with every status it "
            "can answer",
            f"- [API reference]({base}{DOCS_PATH}): the same, rendered",
        ]
    )
