"""Institutions over the small index (150 real abstracts, three real PDFs): read from the PDFs'
page 1, found by name, their papers and researchers, and their pages."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)

# Fusion-in-Decoder's page 1 names Facebook AI Research, PSL University and Inria.
FID = "2007.01282"


def _inria(api: Api) -> dict[str, Any]:
    with api.key_client() as client:
        (match,) = client.get("/api/institutions", params={"name": "inria"}).json()["results"]
        response = client.get(f"/api/institutions/{match['id']}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_an_institution_on_a_pdfs_page_one_lists_that_paper_and_its_authors(api: Api) -> None:
    with api.key_client() as client:
        record = client.get(f"/api/papers/{FID}").json()

    inria = _inria(api)

    assert inria["name"] == "Inria"
    assert inria["papers"] == [
        {"id": FID, "title": record["title"], "published": record["published"], "source": "pdf"}
    ]
    written = [name.strip() for name in record["authors"].split(",")]
    assert sorted(r["name"] for r in inria["researchers"]) == sorted(written)
    assert all(r["papers"] == 1 for r in inria["researchers"])
    # Page 1 marks Gautier Izacard, not Edouard Grave, as at Inria: listed first.
    assert [(r["name"], r["affiliated"]) for r in inria["researchers"]] == [
        ("Gautier Izacard", True),
        ("Edouard Grave", False),
    ]


def test_institutions_are_found_by_name_and_an_unknown_id_is_404(api: Api) -> None:
    with api.key_client() as client:
        every = client.get("/api/institutions").json()["results"]
        universities = client.get("/api/institutions", params={"name": "university"}).json()
        unknown = client.get("/api/institutions/aaaaaaaa")
    with api.client() as anonymous:
        signed_out = anonymous.get("/api/institutions")

    names = {r["name"] for r in every}
    assert {"Inria", "PSL University", "Facebook AI Research", "Allen Institute for AI"} <= names
    assert {r["name"] for r in universities["results"]} == {
        n for n in names if "university" in n.casefold()
    }
    assert set(every[0]) == {"id", "name", "papers"}
    assert unknown.status_code == 404
    assert signed_out.status_code == 401


def test_the_institution_page_says_what_it_is_based_on_and_the_bare_id_redirects(
    api: Api,
) -> None:
    inria = _inria(api)

    with api.client() as client:
        bare = client.get(f"/institutions/{inria['id']}")
        page = client.get(str(inria["path"]))
        listing = client.get("/institutions")

    assert (bare.status_code, bare.headers["location"]) == (308, inria["path"])
    assert page.status_code == 200
    assert "Based on 1 paper that name it as an affiliation: 1 on page 1 of the PDF" in page.text
    assert f'href="/papers/{FID}-leveraging-passage-retrieval-' in page.text
    (ld,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page.text, re.S)
    assert json.loads(ld)["@type"] == "Organization"
    assert f'<a href="{inria["path"]}">Inria</a>' in listing.text
