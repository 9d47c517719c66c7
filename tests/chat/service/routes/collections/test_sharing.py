"""A collection as BibTeX, CSV and Markdown, and its read-only share link: open to anyone
with it until the owner revokes or replaces it, a 404 afterwards as a wrong one is."""

from __future__ import annotations

import csv
import io
import re

import pytest
from pybtex.database import parse_string

from chat.service.routes.collections.sharing import CSV_COLUMNS, as_csv, as_markdown, file_name
from tests.chat.service.routes.collections.conftest import make_collection
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

HOSTILE = {
    "id": "2401.00001",
    "title": '=HYPERLINK("http://evil") <script>x</script> | \\input{/etc/passwd}',
    "authors": "@Mallory Smith, +Eve Jones",
    "published": "2024-01-02",
    "categories": ["cs.CR"],
    "url": "https://arxiv.org/abs/2401.00001",
}


def test_the_three_files_hold_the_papers_in_the_order_added(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "Distil & retrieve", "2007.01282", "1503.02531")
        files = {
            format: client.get(f"/api/collections/{collection_id}/export?format={format}")
            for format in ("bibtex", "csv", "markdown")
        }

    bib = parse_string(files["bibtex"].text, "bibtex")
    rows = list(csv.reader(io.StringIO(files["csv"].text)))
    markdown = files["markdown"].text.splitlines()
    assert files["bibtex"].headers["content-type"] == "text/x-bibtex; charset=utf-8"
    assert [e.fields["eprint"] for e in bib.entries.values()] == ["2007.01282", "1503.02531"]
    assert rows[0] == list(CSV_COLUMNS)
    assert [row[0] for row in rows[1:]] == ["2007.01282", "1503.02531"]
    assert markdown[0] == "# Distil &amp; retrieve"
    assert markdown[4].startswith("| [arXiv:2007.01282] | ")
    assert 'filename="Distil-retrieve.md"' in files["markdown"].headers["content-disposition"]


def test_csv_and_markdown_keep_a_hostile_record_as_text() -> None:
    csv_text = as_csv("x", [HOSTILE])
    markdown = as_markdown("<b>Mine</b> | #1", [HOSTILE])

    (header, row) = list(csv.reader(io.StringIO(csv_text)))
    assert header == list(CSV_COLUMNS)
    assert row[1].startswith("'=HYPERLINK")
    assert row[2] == "'@Mallory Smith; +Eve Jones"
    lines = markdown.splitlines()
    assert lines[0] == "# &lt;b&gt;Mine&lt;/b&gt; \\| #1"
    assert "<script>" not in markdown
    assert lines[4].count(" | ") == 3  # the header's four columns, no more


def test_a_file_name_keeps_only_safe_characters() -> None:
    assert file_name('../"evil"\r\nname', "csv") == "evil-name.csv"
    assert file_name("…", "bib") == "collection.bib"


def test_a_share_link_opens_the_collection_until_revoked(api: Api) -> None:
    with api.key_client() as owner, api.client() as anyone:
        collection_id = make_collection(owner, "Shared", "2007.01282")
        link = owner.post(f"/api/collections/{collection_id}/share").json()
        viewed = anyone.get(link["url"])
        as_bibtex = anyone.get(link["url"], params={"format": "bibtex"})
        listed = owner.get("/api/collections").json()["collections"]
        revoked = owner.delete(f"/api/collections/{collection_id}/share")
        after = anyone.get(link["url"])
        revoked_again = owner.delete(f"/api/collections/{collection_id}/share")

    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/shared/collections/[\w-]{43}", link["url"])
    assert viewed.status_code == 200
    assert viewed.headers["cache-control"] == "no-store"
    assert as_bibtex.headers["cache-control"] == "no-store"
    assert viewed.json()["name"] == "Shared"
    assert [p["id"] for p in viewed.json()["papers"]] == ["2007.01282"]
    assert "eprint = {2007.01282}" in as_bibtex.text
    assert [c["shared"] for c in listed] == [True]
    assert revoked.status_code == 204
    assert after.status_code == 404
    assert revoked_again.status_code == 204


def test_a_new_share_link_replaces_the_old_one(api: Api) -> None:
    with api.key_client() as owner, api.client() as anyone:
        collection_id = make_collection(owner, "Reshared")
        first = owner.post(f"/api/collections/{collection_id}/share").json()
        second = owner.post(f"/api/collections/{collection_id}/share").json()
        old = anyone.get(first["url"])
        new = anyone.get(second["url"])

    assert first["url"] != second["url"]
    assert (old.status_code, new.status_code) == (404, 200)


def test_a_shared_collection_shows_nothing_of_its_owner(api: Api) -> None:
    with api.key_client() as owner, api.client() as anyone:
        collection_id = make_collection(owner, "Plain", "1503.02531")
        link = owner.post(f"/api/collections/{collection_id}/share").json()
        viewed = anyone.get(link["url"])

    assert set(viewed.json()) == {"name", "papers"}
    assert collection_id not in viewed.text
