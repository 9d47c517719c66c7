"""`/docs`: the OpenAPI document (`/openapi.json`) rendered by Swagger UI, every file of it served
by the app itself, so that it works offline and loads nothing from another site.

Swagger UI's files come from the `fastapi-offline` package (Swagger UI 5, which reads the
OpenAPI 3.1 documents FastAPI writes). The page is sent with the other pages' security
headers; its policy also lets run the one inline script that starts Swagger UI, by its hash.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from importlib.resources import files
from typing import Final

from fastapi import APIRouter, Response
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from chat.service.web.rendering import CONTENT_SECURITY_POLICY, PAGE_HEADERS

router = APIRouter(tags=["docs"])

DOCS_PATH: Final = "/docs"
ASSETS_PATH: Final = "/docs/assets"
_INLINE_SCRIPT_RE: Final = re.compile(r"<script>(.*?)</script>", re.DOTALL)
_SCRIPTS_FROM_THIS_ORIGIN: Final = "script-src 'self'"
_TYPES: Final = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}


@cache
def _asset(name: str) -> bytes:
    return (files("fastapi_offline") / "static" / name).read_bytes()


def _policy(html: str) -> str:
    """The pages' Content-Security-Policy, with the page's inline scripts allowed by hash."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in _INLINE_SCRIPT_RE.findall(html)
    ]
    allowed = " ".join([_SCRIPTS_FROM_THIS_ORIGIN, *hashes])
    return CONTENT_SECURITY_POLICY.replace(_SCRIPTS_FROM_THIS_ORIGIN, allowed, 1)


@router.get(DOCS_PATH, include_in_schema=False)
def docs() -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="paperchat API",
        swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS_PATH}/favicon.png",
    )
    html = bytes(page.body).decode()
    headers = {**PAGE_HEADERS, "Content-Security-Policy": _policy(html)}
    return HTMLResponse(html, headers=headers)


@router.get(f"{ASSETS_PATH}/{{name}}", include_in_schema=False)
def docs_asset(name: str) -> Response:
    media_type = _TYPES.get(name)
    if media_type is None:
        return Response("not found", status_code=404, media_type="text/plain")
    headers = {"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"}
    return Response(_asset(name), media_type=media_type, headers=headers)
