"""A researcher's page as Markdown, by `Accept: text/markdown` or a `.md` suffix: the same
papers and co-authors as the HTML page, `Vary: Accept` on both."""

from __future__ import annotations

import re

import pytest

from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)

AUTHOR = "Mahdi Abavisani"


def test_a_researchers_page_as_markdown_lists_the_same_papers(web: Api) -> None:
    with web.client() as client:
        path = client.get(f"/authors/{AUTHOR}").headers["location"]
        html = client.get(path)
        by_accept = client.get(path, headers={"Accept": "text/markdown"})
        by_suffix = client.get(f"{path}.md")

    assert html.status_code == by_accept.status_code == by_suffix.status_code == 200
    assert html.headers["content-type"].startswith("text/html")
    for response in (by_accept, by_suffix):
        assert response.headers["content-type"].startswith("text/markdown")
        assert response.text == by_accept.text
    for response in (html, by_accept):
        assert "Accept" in response.headers["vary"].split(", ")
    assert by_accept.text.startswith(f"# {AUTHOR}\n")
    assert "matched by name: older work may be missing" in by_accept.text
    listed = re.findall(r"^- \[.*\]\(<[^>]+/papers/([^>]+)>\)", by_accept.text, re.M)
    linked = re.findall(r'<h3><a href="/papers/([^"]+)">', html.text)
    assert listed
    assert listed == linked
