"""The HTML pages: Jinja2 templates with autoescaping, sent with a strict
Content-Security-Policy (scripts and styles from this origin only, no inline script)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Final

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from chat.library.dates import dated, shown

TEMPLATES_DIR: Final = Path(__file__).resolve().parent / "templates"

CONTENT_SECURITY_POLICY: Final = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'self'",
    ]
)
PAGE_HEADERS: Final = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


@cache
def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # `{{ paper.published|date }}`: "3 Jul 2019", or "Jul 2019" when only the month is known.
    environment.filters["date"] = shown
    environment.globals["dated"] = dated
    return environment


def render_page(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """The page `template` filled with `context`, every value escaped."""
    context.setdefault("query", "")
    context.setdefault("paper_id", "")
    context.setdefault("author_name", "")
    html = _environment().get_template(template).render(**context)
    return HTMLResponse(html, status_code=status_code, headers=PAGE_HEADERS)
