"""The reader of a user's own upload over plain HTTP: its owner gets the page, the page
images, the text layers and where a passage lies, all private and unindexed; anyone else,
signed in or not, gets the 404 of an unknown id, and a deleted upload's pages are gone."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    LIBRARY_PDF,
    upload,
    uploads_api_fixture,
)
from tests.chat.service.web.uploads.conftest import Owner
from tests.support.running.server import Api
from tests.support.validators import nu_errors

pytestmark = pytest.mark.timeout(600)

MISSING = "00000000-0000-4000-8000-000000000000"
PRIVATE = "private, no-store"


def _paths(upload_id: str) -> list[str]:
    return [
        f"/uploads/{upload_id}/read",
        f"/uploads/{upload_id}/pages/1.webp",
        f"/uploads/{upload_id}/pages/1.json",
        f"/uploads/{upload_id}/evidence?chunk=x",
        f"/uploads/{upload_id}/pages/1/annotations",
        f"/uploads/{upload_id}/skim",
    ]


def _passage(web: Api, upload_id: str) -> tuple[str, int, str]:
    """A full-text passage of the upload's own index: its chunk id, page and first words."""
    [catalog] = web.services.settings.uploads_path.glob(f"*/{upload_id}/catalog.sqlite")
    db = sqlite3.connect(catalog)
    row = db.execute(
        "SELECT id, page_start, text FROM chunks WHERE kind = 'fulltext' AND page_start = 2"
        " ORDER BY number LIMIT 1"
    ).fetchone()
    db.close()
    return str(row[0]), int(row[1]), str(row[2])


def test_the_owner_reads_the_upload_in_a_private_unindexed_reader(web: Api, owner: Owner) -> None:
    with web.signed_in(owner.email) as client:
        page = client.get(f"/uploads/{owner.id}/read")
        image = client.get(f"/uploads/{owner.id}/pages/1.webp?width=480")
        layer = client.get(f"/uploads/{owner.id}/pages/1.json")
        past = client.get(f"/uploads/{owner.id}/pages/{owner.upload['pages'] + 1}.webp")

    assert page.status_code == 200
    assert f'data-base="/uploads/{owner.id}"' in page.text
    assert f'data-paper-page="{owner.upload["doc_id"]}"' in page.text
    assert (
        len(re.findall(r'class="reader-page" data-page="\d+"', page.text)) == owner.upload["pages"]
    )
    assert '<meta name="robots" content="noindex, nofollow">' in page.text
    assert f'data-upload="{owner.id}"' in page.text
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/webp"
    assert image.content[8:12] == b"WEBP"
    assert layer.status_code == 200
    assert any("LONGEVAL" in line["text"] for line in layer.json()["lines"])
    assert past.status_code == 404
    assert past.headers["cache-control"] == PRIVATE
    for answer in (page, image, layer):
        assert answer.headers["cache-control"] == PRIVATE
        assert answer.headers["x-robots-tag"] == "noindex, nofollow"


def test_an_api_key_of_the_owner_reads_it_too(web: Api, owner: Owner) -> None:
    with web.key_client(owner.email) as client:
        layer = client.get(f"/uploads/{owner.id}/pages/2.json")

    assert layer.status_code == 200
    assert layer.json()["page"] == 2


def test_the_cited_passage_is_placed_on_its_page_and_the_quoted_words_inside_it(
    web: Api, owner: Owner
) -> None:
    chunk, page, text = _passage(web, owner.id)
    quote = " ".join(text.split()[:8])

    with web.signed_in(owner.email) as client:
        whole = client.get(f"/uploads/{owner.id}/evidence", params={"chunk": chunk})
        quoted = client.get(
            f"/uploads/{owner.id}/evidence", params={"chunk": chunk, "quote": quote}
        )

    assert whole.status_code == 200
    assert whole.headers["cache-control"] == PRIVATE
    evidence = whole.json()
    assert evidence["paper_id"] == owner.upload["doc_id"]
    assert evidence["page"] == page
    assert evidence["boxes"]
    assert {box["page"] for box in evidence["boxes"]} >= {page}
    assert evidence["focus"] is None
    assert quoted.json()["focus"]
    assert len(quoted.json()["focus"]) < len(evidence["boxes"]) + 1


def test_the_owner_gets_the_uploads_citation_marks_terms_and_skim(web: Api, owner: Owner) -> None:
    with web.signed_in(owner.email) as client:
        page = client.get(f"/uploads/{owner.id}/pages/1/annotations")
        skim = client.get(f"/uploads/{owner.id}/skim")

    annotations = page.json()
    assert page.status_code == 200
    assert page.headers["cache-control"] == PRIVATE
    assert annotations["paper_id"] == owner.upload["doc_id"]
    assert annotations["pages"] == owner.upload["pages"]
    assert any(
        "Kryscinski" in mark["text"] and mark["references"] and mark["boxes"]
        for mark in annotations["citations"]
    )
    assert annotations["discussions"] == []
    assert skim.status_code == 200
    assert skim.headers["cache-control"] == PRIVATE
    assert {sentence["facet"] for sentence in skim.json()["sentences"]} >= {"goal", "result"}


def test_another_user_and_no_user_get_the_404_of_an_unknown_upload(web: Api, owner: Owner) -> None:
    with web.signed_in() as other, web.client() as anonymous, web.key_client() as keyed:
        for path, missing in zip(_paths(owner.id), _paths(MISSING), strict=True):
            unknown = other.get(missing)
            for client in (other, anonymous, keyed):
                answer = client.get(path)

                assert answer.status_code == 404, path
                assert answer.headers["cache-control"] == PRIVATE
                assert answer.text.replace(owner.id, "ID") == unknown.text.replace(MISSING, "ID")
                assert owner.upload["doc_id"] not in answer.text


def test_nothing_public_names_an_upload(web: Api, owner: Owner) -> None:
    with web.client() as anonymous:
        listed = [anonymous.get(path).text for path in ("/sitemap.xml", "/robots.txt", "/")]
        searched = anonymous.get("/", params={"q": "long-form summarization human evaluation"})

    for text in (*listed, searched.text):
        assert owner.id not in text
        assert owner.upload["doc_id"] not in text


def test_a_deleted_uploads_pages_are_404(web: Api) -> None:
    email = web.new_user()
    with web.signed_in(email) as client:
        made = upload(client, "1502.03167v3.pdf", "1502.03167v3.pdf")
        before = client.get(f"/uploads/{made['id']}/pages/1.json")

        deleted = client.delete(f"/api/uploads/{made['id']}")
        after = [client.get(path) for path in _paths(made["id"])]

    assert made["status"] == "ready", made
    assert before.status_code == 200
    assert deleted.status_code == 204
    assert [answer.status_code for answer in after] == [404] * 6


def test_an_upload_the_library_holds_opens_the_library_papers_reader(uploads_api: Api) -> None:
    with uploads_api.signed_in() as client:
        made = upload(client, LIBRARY_PDF)
        page = client.get(f"/uploads/{made['id']}/read", follow_redirects=False)
        image = client.get(f"/uploads/{made['id']}/pages/1.webp")

    assert made["library_id"] == "2007.01282"
    assert page.status_code == 303
    assert page.headers["location"] == "/papers/2007.01282#reader"
    assert page.headers["cache-control"] == PRIVATE
    assert image.status_code == 404


def test_the_upload_reader_is_valid_html(web: Api, owner: Owner, tmp_path: Path) -> None:
    with web.signed_in(owner.email) as client:
        page = client.get(f"/uploads/{owner.id}/read").text

    errors = nu_errors({"upload reader": page}, tmp_path)

    assert errors == {}
