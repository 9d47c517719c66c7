"""`/docs`: the OpenAPI document (`/openapi.json`) rendered by Swagger UI, every file of it served
by the app itself, so that it works offline and loads nothing from another site.

Swagger UI's files come from the `fastapi-offline` package (Swagger UI 5, which reads the
OpenAPI 3.1 documents FastAPI writes). The page is sent with the other pages' security
headers; its policy also lets run the one inline script that starts Swagger UI, by its hash.
`/openapi.json` is served here too, with the same headers and a policy that lets nothing
run; ReDoc is not served (its inline styles would need a weaker policy): `/redoc` is a 404
with the same headers, naming `/docs`.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from importlib.resources import files
from typing import Final

from fastapi import APIRouter, Request, Response
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse

from chat.service.web.rendering import CONTENT_SECURITY_POLICY, PAGE_HEADERS

router = APIRouter(tags=["docs"])

DOCS_PATH: Final = "/docs"
OPENAPI_PATH: Final = "/openapi.json"
REDOC_PATH: Final = "/redoc"
ASSETS_PATH: Final = "/docs/assets"
_INLINE_SCRIPT_RE: Final = re.compile(r"<script>(.*?)</script>", re.DOTALL)
_SCRIPTS_FROM_THIS_ORIGIN: Final = "script-src 'self'"
_TYPES: Final = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}
# A document that is no page: nothing in it may load, run or be framed.
_DOCUMENT_HEADERS: Final = {
    **PAGE_HEADERS,
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
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
        openapi_url=OPENAPI_PATH,
        title="paperchat API",
        swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS_PATH}/favicon.png",
    )
    html = bytes(page.body).decode()
    headers = {**PAGE_HEADERS, "Content-Security-Policy": _policy(html)}
    return HTMLResponse(html, headers=headers)


@router.get(OPENAPI_PATH, include_in_schema=False)
def openapi_document(request: Request) -> JSONResponse:
    """The OpenAPI document of every route."""
    return JSONResponse(request.app.openapi(), headers=_DOCUMENT_HEADERS)


@router.get(REDOC_PATH, include_in_schema=False)
def redoc() -> JSONResponse:
    detail = f"ReDoc is not served; the API reference is {DOCS_PATH}"
    return JSONResponse({"detail": detail}, status_code=404, headers=_DOCUMENT_HEADERS)


@router.get(f"{ASSETS_PATH}/{{name}}", include_in_schema=False)
def docs_asset(name: str) -> Response:
    media_type = _TYPES.get(name)
    if media_type is None:
        return Response("not found", 404, headers=_DOCUMENT_HEADERS, media_type="text/plain")
    headers = {"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"}
    return Response(_asset(name), media_type=media_type, headers=headers)
