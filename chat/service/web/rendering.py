"""The HTML pages: Jinja2 templates with autoescaping, sent with a strict
Content-Security-Policy (scripts and styles from this origin only, no inline script)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

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


# What JSON text must not carry inside an HTML `<script>` (`<!--`, `<script`, `</script`
# switch the parser's script states; `&` in case the block is ever read as HTML; U+2028 and
# U+2029 end a line in older JavaScript): each written as its JSON escape.
_SCRIPT_ESCAPES: Final = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(value: object) -> Markup:
    """`value` as JSON text that is safe inside an HTML `<script>` element: the one way a page
    embeds JSON (`{{ data|script_json }}` in a template)."""
    return Markup(json.dumps(value, ensure_ascii=False).translate(_SCRIPT_ESCAPES))


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
    environment.filters["script_json"] = script_json
    return environment


def render_page(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """The page `template` filled with `context`, every value escaped."""
    context.setdefault("query", "")
    context.setdefault("paper_id", "")
    context.setdefault("author_name", "")
    html = _environment().get_template(template).render(**context)
    return HTMLResponse(html, status_code=status_code, headers=PAGE_HEADERS)
