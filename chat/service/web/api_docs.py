"""`/docs`: the OpenAPI document (`/openapi.json`) rendered by Swagger UI, every file of it served
by the app itself, so that it works offline and loads nothing from another site.

Swagger UI's files come from the `fastapi-offline` package (Swagger UI 5, which reads the
OpenAPI 3.1 documents FastAPI writes).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Final

from fastapi import APIRouter, Response
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

router = APIRouter(tags=["docs"])

ASSETS_PATH: Final = "/docs/assets"
_TYPES: Final = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}


@cache
def _asset(name: str) -> bytes:
    return (files("fastapi_offline") / "static" / name).read_bytes()


@router.get("/docs", include_in_schema=False)
def docs() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="paperchat API",
        swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS_PATH}/favicon.png",
    )


@router.get(f"{ASSETS_PATH}/{{name}}", include_in_schema=False)
def docs_asset(name: str) -> Response:
    media_type = _TYPES.get(name)
    if media_type is None:
        return Response("not found", status_code=404, media_type="text/plain")
    headers = {"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"}
    return Response(_asset(name), media_type=media_type, headers=headers)
