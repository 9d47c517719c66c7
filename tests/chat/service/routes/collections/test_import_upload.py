"""`POST /api/collections/import` with the file uploaded as a multipart form (`file`): read
as the JSON body's `content` is, its format told from its text or given, under the same
body limit and with the same errors; nothing is made from a form that is refused."""

from __future__ import annotations

import pytest

from tests.chat.service.routes.collections.test_imports import DATA, SCHOLAR_BIBTEX
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

# BibTeX after a note in brackets: told from its text, it would be read as CSL-JSON.
NOTED_BIBTEX = "[my reading list]\n" + SCHOLAR_BIBTEX


def test_an_uploaded_bibtex_file_becomes_a_collection_named_for_the_file(api: Api) -> None:
    files = {"file": ("Retrieval reading.bib", SCHOLAR_BIBTEX.encode(), "application/x-bibtex")}

    with api.key_client() as client:
        made = client.post("/api/collections/import", files=files)
        papers = client.get(f"/api/collections/{made.json()['collection']['id']}/papers")

    assert made.status_code == 201, made.text
    answer = made.json()
    assert (answer["collection"]["name"], answer["format"]) == ("Retrieval reading", "bibtex")
    assert [m["paper_id"] for m in answer["matched"]] == ["2007.01282", "1812.06145"]
    assert [u["at"] for u in answer["unreadable"]] == ["line 17"]
    assert [p["id"] for p in papers.json()] == ["2007.01282", "1812.06145"]


def test_an_uploaded_zotero_export_is_told_from_its_text_and_named_as_given(api: Api) -> None:
    content = (DATA / "zotero.json").read_bytes()

    with api.signed_in() as browser:
        made = browser.post(
            "/api/collections/import",
            files={"file": ("export.txt", content, "text/plain")},
            data={"name": "From Zotero"},
        )

    assert made.status_code == 201, made.text
    answer = made.json()
    assert (answer["collection"]["name"], answer["format"]) == ("From Zotero", "csl-json")
    assert [m["paper_id"] for m in answer["matched"]] == ["2007.01282"]


def test_a_format_given_is_the_one_the_file_is_read_as(api: Api) -> None:
    files = {"file": ("noted.bib", NOTED_BIBTEX.encode(), "text/plain")}

    with api.key_client() as client:
        guessed = client.post("/api/collections/import", files=files)
        given = client.post("/api/collections/import", files=files, data={"format": "bibtex"})

    assert guessed.status_code == 422
    assert (given.status_code, given.json()["format"]) == (201, "bibtex")
    assert [m["paper_id"] for m in given.json()["matched"]] == ["2007.01282", "1812.06145"]


@pytest.mark.parametrize(
    ("files", "data", "detail"),
    [
        ({"document": ("a.bib", SCHOLAR_BIBTEX.encode(), "text/plain")}, {}, "no file in"),
        ({"file": ("a.pdf", b"%PDF-1.4\n\xe2\x28\xa1", "application/pdf")}, {}, "not UTF-8"),
        ({"file": ("a.bib", b"\x00\x01" * 64, "text/plain")}, {}, "the file is binary"),
        ({"file": ("a.bib", b"my reading list", "text/plain")}, {}, "not BibTeX, CSL-JSON"),
        (
            {"file": ("a.bib", SCHOLAR_BIBTEX.encode(), "text/plain")},
            {"format": "endnote"},
            "format",
        ),
    ],
)
def test_a_form_that_cannot_be_read_is_a_422_naming_why(
    api: Api, files: dict[str, tuple[str, bytes, str]], data: dict[str, str], detail: str
) -> None:
    with api.key_client() as client:
        refused = client.post("/api/collections/import", files=files, data=data)
        listed = client.get("/api/collections")

    assert refused.status_code == 422
    assert detail in refused.json()["detail"]
    assert listed.json() == {"collections": []}


def test_an_uploaded_file_larger_than_the_body_limit_is_refused(api: Api) -> None:
    content = SCHOLAR_BIBTEX.encode() * (1024 * 1024 // len(SCHOLAR_BIBTEX))

    with api.key_client() as client:
        refused = client.post("/api/collections/import", files={"file": ("big.bib", content)})
        listed = client.get("/api/collections")

    assert refused.status_code == 413
    assert "larger than" in refused.json()["detail"]
    assert listed.json() == {"collections": []}


def test_a_body_that_is_neither_json_nor_a_form_is_a_422(api: Api) -> None:
    with api.key_client() as client:
        refused = client.post(
            "/api/collections/import",
            content=SCHOLAR_BIBTEX,
            headers={"Content-Type": "application/x-bibtex"},
        )

    assert refused.status_code == 422
    assert "multipart/form-data" in refused.json()["detail"]
