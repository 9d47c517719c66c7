"""JSON placed in a page: one helper, `script_json`, whose text reads back as the value and
holds nothing an HTML parser acts on inside a `<script>`; the templates use no other."""

from __future__ import annotations

import json
import re

import pytest

from chat.service.web.rendering import TEMPLATES_DIR, script_json

HOSTILE = [
    "<!--<script>",
    "</script><script>alert(1)</script>",
    "a & b <b>bold</b> -->",
    "line\u2028separator\u2029paragraph",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_embedded_json_reads_back_and_holds_no_markup(text: str) -> None:
    value = {"name": text, "list": [text, 1, None]}

    written = str(script_json(value))

    assert json.loads(written) == value
    assert not set("<>&\u2028\u2029") & set(written)


def test_templates_embed_json_only_through_the_helper() -> None:
    templates = sorted(TEMPLATES_DIR.glob("*.html"))
    scripts = [
        (path.name, body)
        for path in templates
        for body in re.findall(r"<script[^>]*>(.+?)</script>", path.read_text(encoding="utf-8"))
    ]

    assert len(scripts) >= 3
    assert all(re.fullmatch(r"\{\{ [\w.]+\|script_json \}\}", body) for _, body in scripts)
    assert not [p.name for p in templates if re.search(r"\|\s*(tojson|safe)\b", p.read_text())]
