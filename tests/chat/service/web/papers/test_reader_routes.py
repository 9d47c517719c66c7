"""The reader's routes over plain HTTP: the paper page with its pages, page images and text
layers within their bounds, where a cited passage lies, and what is refused."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.service.web.papers.pdfpages import WIDTHS
from chat.service.web.rendering import CONTENT_SECURITY_POLICY
from tests.fakes.openai import FakeOpenAI
from tests.support.running.net import serving, unused_port
from tests.support.running.server import Api, served_settings
from tests.support.worlds.reader import (
    FID_PDF,
    SHORT_PDF,
    first_abstract_id,
    reader_index,
    reader_web,
)

if TYPE_CHECKING:
    from chat.wiring import Wiring

__all__ = ["reader_index", "reader_web"]

pytestmark = pytest.mark.timeout(300)

SCRIPT_TAG = re.compile(r"<script\b[^>]*>", re.I)


def _chunks(api: Api, paper_id: str, kind: str) -> list[sqlite3.Row]:
    db = sqlite3.connect(api.services.settings.catalog_path)
    db.row_factory = sqlite3.Row
    rows = db.execute(
        "SELECT * FROM chunks WHERE paper_id = ? AND kind = ? ORDER BY number", (paper_id, kind)
    ).fetchall()
    db.close()
    return rows


def test_a_pdf_papers_page_carries_the_reader_with_every_page(reader_web: Api) -> None:
    with reader_web.client() as client:
        response = client.get(f"/papers/{SHORT_PDF}v1", follow_redirects=True)

    page = response.text
    assert response.status_code == 200
    assert f'data-reader data-paper="{SHORT_PDF}"' in page
    assert re.findall(r'data-page="(\d+)"', page) == ["1", "2", "3", "4"]
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    # Every script is a file of this origin; JSON-LD is data, never run.
    scripts = [t for t in SCRIPT_TAG.findall(page) if 'type="application/ld+json"' not in t]
    assert scripts
    assert all(' src="/' in tag for tag in scripts)
    assert 'href="/static/reader.css"' in page
    assert " style=" not in page


def test_an_abstract_only_paper_has_no_reader_and_its_pages_are_404(reader_web: Api) -> None:
    paper_id = first_abstract_id()

    with reader_web.client() as client:
        page = client.get(f"/papers/{paper_id}", follow_redirects=True)
        image = client.get(f"/papers/{paper_id}/pages/1.webp")
        layer = client.get(f"/papers/{paper_id}/pages/1.json")

    assert page.status_code == 200
    assert "data-reader " not in page.text
    assert f'data-paper-page="{paper_id}"' in page.text
    assert (image.status_code, layer.status_code) == (404, 404)
    assert image.json()["detail"] == f"no PDF of {paper_id!r} on this server"


def test_page_images_are_webp_at_a_few_widths_cached_by_version(reader_web: Api) -> None:
    with reader_web.client() as client:
        first = client.get(f"/papers/{SHORT_PDF}/pages/1.webp", params={"width": 700})
        etag = first.headers["etag"]
        version = etag.strip('"').split("-")[0]
        again = client.get(
            f"/papers/{SHORT_PDF}/pages/1.webp",
            params={"width": 720},
            headers={"If-None-Match": etag},
        )
        pinned = client.get(
            f"/papers/{SHORT_PDF}/pages/1.webp", params={"width": 700, "v": version}
        )

    assert first.status_code == 200
    assert first.headers["content-type"] == "image/webp"
    assert first.content[:4] == b"RIFF"
    assert first.content[8:12] == b"WEBP"
    assert etag.endswith(f'-1-{WIDTHS[1]}"')
    assert first.headers["cache-control"] == "no-cache"
    assert again.status_code == 304
    assert pinned.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert pinned.content == first.content


@pytest.mark.parametrize(
    ("path", "status"),
    [
        (f"/papers/{SHORT_PDF}/pages/0.webp", 404),
        (f"/papers/{SHORT_PDF}/pages/5.webp", 404),
        (f"/papers/{SHORT_PDF}/pages/99999999999.webp", 404),
        (f"/papers/{SHORT_PDF}/pages/5.json", 404),
        (f"/papers/{SHORT_PDF}/pages/0.json", 404),
        (f"/papers/{SHORT_PDF}/pages/1.webp?width=0", 422),
        (f"/papers/{SHORT_PDF}/pages/1.webp?width=100000", 422),
        (f"/papers/{SHORT_PDF}/pages/1.webp?width=wide", 422),
        ("/papers/9999.99999/pages/1.webp", 404),
        ("/papers/..%2F..%2Fetc%2Fpasswd/pages/1.webp", 404),
        ("/papers/%2Fetc%2Fpasswd/pages/1.json", 404),
    ],
)
def test_pages_outside_the_pdf_unknown_papers_and_bad_widths_are_refused(
    reader_web: Api, path: str, status: int
) -> None:
    with reader_web.client() as client:
        response = client.get(path)

    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/json")


def test_an_out_of_range_page_names_the_pages_there_are(reader_web: Api) -> None:
    with reader_web.client() as client:
        response = client.get(f"/papers/{SHORT_PDF}/pages/7.webp")

    assert response.json()["detail"] == f"{SHORT_PDF!r} has pages 1 to 4, not 7"


def test_a_text_layer_lists_the_pages_lines_within_the_page(reader_web: Api) -> None:
    with reader_web.client() as client:
        response = client.get(f"/papers/{FID_PDF}/pages/2.json")

    layer = response.json()
    assert response.status_code == 200
    assert layer["page"] == 2
    assert len(layer["lines"]) > 40
    assert all(0 <= line["x0"] < line["x1"] <= 1 for line in layer["lines"])
    assert all(0 <= line["y0"] < line["y1"] <= 1 for line in layer["lines"])
    text = " ".join(line["text"] for line in layer["lines"])
    assert "passages" in text


def test_a_full_text_passage_has_its_page_and_boxes_on_it(reader_web: Api) -> None:
    chunk = next(c for c in _chunks(reader_web, FID_PDF, "fulltext") if c["page_start"] == 2)

    with reader_web.client() as client:
        response = client.get("/reader/evidence", params={"chunk": chunk["id"]})

    found = response.json()
    assert response.status_code == 200
    assert (found["paper_id"], found["kind"], found["page"]) == (FID_PDF, "fulltext", 2)
    assert found["page"] == chunk["page_start"]
    assert found["boxes"]
    assert {b["page"] for b in found["boxes"]} <= {chunk["page_start"], chunk["page_end"]}
    assert found["abstract"] is None


def test_an_abstract_passage_is_placed_in_the_abstract_as_shown(reader_web: Api) -> None:
    paper_id = first_abstract_id()
    chunk = _chunks(reader_web, paper_id, "abstract")[0]

    with reader_web.client() as client:
        found = client.get("/reader/evidence", params={"chunk": chunk["id"]}).json()

    assert (found["kind"], found["page"], found["boxes"]) == ("abstract", None, None)
    assert found["abstract"]
    paragraph, start, end = found["abstract"][0]
    assert (paragraph, start) == (0, 0)
    assert end > 200


def test_an_index_without_positions_gives_the_page_alone(reader_web: Api) -> None:
    chunk = _chunks(reader_web, SHORT_PDF, "fulltext")[2]
    db = sqlite3.connect(reader_web.services.settings.catalog_path)
    db.execute("UPDATE chunks SET boxes = NULL WHERE id = ?", (chunk["id"],))
    db.commit()

    try:
        with reader_web.client() as client:
            found = client.get("/reader/evidence", params={"chunk": chunk["id"]}).json()
    finally:
        db.execute("UPDATE chunks SET boxes = ? WHERE id = ?", (chunk["boxes"], chunk["id"]))
        db.commit()
        db.close()

    assert found["page"] == chunk["page_start"]
    assert found["boxes"] is None


@pytest.mark.parametrize("chunk", ["nope", "2304.02623#fulltext-999@0000000000", "x" * 301, ""])
def test_an_unknown_or_malformed_passage_is_refused(reader_web: Api, chunk: str) -> None:
    with reader_web.client() as client:
        response = client.get("/reader/evidence", params={"chunk": chunk})

    assert response.status_code == (404 if 0 < len(chunk) <= 300 else 422)


def test_one_client_rendering_page_after_page_is_stopped_but_cached_pages_stay_free(
    reader_index: Wiring, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    settings = served_settings(
        reader_index, fake_llm, tmp_path / "db.sqlite", page_render_rate_limit="3/minute"
    )
    prepare_service(settings)
    app = create_app(settings)
    with serving(app, unused_port()) as base_url, httpx.Client(base_url=base_url) as client:
        first = [client.get(f"/papers/{SHORT_PDF}/pages/{n}.webp") for n in (1, 2)]
        layer = client.get(f"/papers/{SHORT_PDF}/pages/1.json")
        fourth = client.get(f"/papers/{SHORT_PDF}/pages/3.webp")
        cached = client.get(f"/papers/{SHORT_PDF}/pages/1.webp")
        cached_layer = client.get(f"/papers/{SHORT_PDF}/pages/1.json")

    assert [r.status_code for r in [*first, layer]] == [200, 200, 200]
    assert fourth.status_code == 429
    assert int(fourth.headers["retry-after"]) >= 1
    assert "too many pages rendered" in fourth.json()["detail"]
    assert (cached.status_code, cached_layer.status_code) == (200, 200)
    assert cached.content == first[0].content
