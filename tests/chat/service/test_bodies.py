"""Request bodies: JSON nested too deep for a parser is a 400 on every route that takes a
body, in the shape its path speaks; brackets inside strings are text."""

from __future__ import annotations

import json
import re
from typing import Any

import fastapi.routing
import pytest
from fastapi import FastAPI
from starlette.routing import Route

from chat.service.bodies import MAX_JSON_DEPTH, json_depth
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)  # the first test of a run builds the index

DEEP = {
    "arrays": b"[" * 5000,
    "objects": b'{"a":' * 5000,
    "closed arrays": b"[" * 5000 + b"]" * 5000,
}
TOO_DEEP = f"the JSON body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels"
BODY_METHODS = {"POST", "PUT", "PATCH"}


def _body_routes(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every route that takes a body, its path parameters filled in."""
    found = []
    for context in fastapi.routing.iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, Route):
            path = re.sub(r"\{[^}]+\}", "x", route.path)
            found += [(method, path) for method in sorted((route.methods or set()) & BODY_METHODS)]
    return found


@pytest.mark.parametrize("body", DEEP.values(), ids=DEEP.keys())
def test_json_nested_too_deep_is_a_400_on_every_route_that_takes_a_body(
    api: Api, body: bytes
) -> None:
    routes = _body_routes(api.app)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    with api.key_client() as client:
        answers = {
            (method, path): client.request(method, path, content=body, headers=headers)
            for method, path in routes
        }

    assert {"/mcp", "/api/chat", "/api/retrieve", "/v1/chat/completions"} <= {p for _, p in routes}
    assert {route: r.status_code for route, r in answers.items()} == dict.fromkeys(routes, 400)
    for (_method, path), response in answers.items():
        if path.startswith("/v1/"):
            assert response.json()["error"]["message"] == TOO_DEEP
            assert response.json()["error"]["type"] == "invalid_request_error"
        else:
            assert response.json() == {"detail": TOO_DEEP}


def test_brackets_and_escaped_quotes_inside_strings_are_text(api: Api) -> None:
    query = '[{"attention' + '\\"[' * 200 + "{" * 200 + ' is all you need"}]'

    with api.key_client() as client:
        response = client.post("/api/retrieve", json={"query": query, "k": 2})

    assert response.status_code == 200, response.text
    assert len(response.json()["passages"]) == 2


def _reference_depth(value: Any) -> int:
    """Nesting of a parsed JSON value: the answer `json_depth` must give without parsing."""
    if isinstance(value, dict):
        return 1 + max(map(_reference_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_reference_depth, value), default=0)
    return 0


@pytest.mark.parametrize(
    "text",
    [
        '"[[[{"',
        "3",
        "[]",
        '{"a": [1, {"b": "]]]}}"}], "c": {}}',
        '["\\\\", ["\\\\\\"[["], "\\"{"]',
        '{"k\\"[": [[["\\u005b"]]]}',
        '[{"a": [[[[[[[[[[]]]]]]]]]]}, "]"]',
    ],
)
def test_the_depth_counts_what_the_parser_nests_and_no_bracket_in_a_string(text: str) -> None:
    expected = _reference_depth(json.loads(text))

    found = [json_depth(text.encode(encoding)) for encoding in ("utf-8", "utf-16", "utf-32")]

    assert found == [expected] * 3
