"""An institution's page as Markdown, by `Accept: text/markdown` or a `.md` suffix: the same
papers as the HTML page and where its name was read, `Vary: Accept` on both."""

from __future__ import annotations

import re

import pytest

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)

FID = "2007.01282"  # its page 1 names Inria


def test_an_institutions_page_as_markdown_lists_the_same_papers(api: Api) -> None:
    with api.key_client() as client:
        (inria, *_) = client.get("/api/institutions", params={"name": "Inria"}).json()["results"]
    with api.client() as client:
        path = client.get(f"/institutions/{inria['id']}").headers["location"]
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
    assert by_accept.text.startswith("# Inria\n")
    assert "1 on their PDF's first page" in by_accept.text
    listed = re.findall(r"^- \[.*\]\(<[^>]+/papers/([^>]+)>\)", by_accept.text, re.M)
    assert len(listed) == 1
    assert listed[0].startswith(f"{FID}-leveraging-passage-retrieval-")
    assert "## Researchers at Inria (by page 1 of its papers)" in by_accept.text
    assert "- [Gautier Izacard](<" in by_accept.text
    assert "Edouard Grave](<" not in by_accept.text
