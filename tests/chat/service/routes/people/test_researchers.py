"""Researcher profiles over the small index of real abstracts: stable ids, the API's shape,
positions in each byline, co-author counts, and the page's redirects, graph and JSON-LD."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import httpx
import pytest

from chat.library import researchers
from chat.service.match_reports import match_reports
from chat.settings import Settings
from ingest.index.names.people import split_authors
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)

# Among the first 150 real abstracts: he is first author on two papers and in the middle of
# two, always with Walid Ahmed; Yang Liu is last on some and in the middle of others.
HAJIMOLAHOSEINI = "Habib Hajimolahoseini"
LIU = "Yang Liu"
PRANGE = "J. Prange"


def _profile(client: httpx.Client, name: str) -> dict[str, Any]:
    (match,) = client.get("/api/researchers", params={"name": name}).json()["results"]
    response = client.get(f"/api/researchers/{match['id']}")
    assert response.status_code == 200, response.text
    profile: dict[str, Any] = response.json()
    return profile


def _bylines(client: httpx.Client, profile: dict[str, Any]) -> dict[str, list[str]]:
    """Each of the profile's papers' author keys in order, as the paper's record lists them."""
    records = (client.get(f"/api/papers/{p['id']}").json() for p in profile["papers"])
    return {r["id"]: [n.key for n in split_authors(r["authors"])] for r in records}


@pytest.mark.parametrize("name", [HAJIMOLAHOSEINI, LIU])
def test_positions_are_the_researchers_place_in_each_byline(api: Api, name: str) -> None:
    with api.key_client() as client:
        profile = _profile(client, name)
        bylines = _bylines(client, profile)

    key = name.casefold()
    expected = {}
    for paper_id, keys in bylines.items():
        at = keys.index(key)
        expected[paper_id] = "first" if at == 0 else "last" if at == len(keys) - 1 else "middle"
    assert {p["id"]: p["position"] for p in profile["papers"]} == expected
    assert len(set(expected.values())) > 1
    assert set(profile["papers"][0]) == {"id", "title", "published", "position"}
    dates = [p["published"] for p in profile["papers"]]
    assert dates == sorted(dates, reverse=True)


def test_coauthors_count_the_papers_shared_and_link_to_profiles(api: Api) -> None:
    with api.key_client() as client:
        profile = _profile(client, HAJIMOLAHOSEINI)
        bylines = _bylines(client, profile)
        first = profile["coauthors"][0]
        theirs = client.get(f"/api/researchers/{first['id']}").json()

    own = HAJIMOLAHOSEINI.casefold()
    shared = Counter(k for keys in bylines.values() for k in set(keys) if k != own)
    assert {c["name"].casefold(): c["shared"] for c in profile["coauthors"]} == dict(shared)
    assert first["shared"] == max(shared.values())
    assert theirs["name"] == first["name"]
    assert {"id": profile["id"], "name": profile["name"], "shared": first["shared"]} in theirs[
        "coauthors"
    ]


def test_a_name_search_finds_the_researcher_and_an_unknown_id_is_404(api: Api) -> None:
    with api.key_client() as client:
        found = client.get("/api/researchers", params={"name": "jakob PRANGE"}).json()
        nobody = client.get("/api/researchers", params={"name": "Nobody Atall"}).json()
        unknown = client.get("/api/researchers/aaaaaaaa")
    with api.client() as anonymous:
        signed_out = anonymous.get("/api/researchers", params={"name": PRANGE})

    (match,) = found["results"]
    assert match["name"] == "Jakob Prange"
    assert match["papers"] == 3
    assert nobody == {"results": []}
    assert unknown.status_code == 404
    assert "aaaaaaaa" in unknown.json()["detail"]
    assert signed_out.status_code == 401


def test_author_and_bare_id_urls_redirect_to_the_researcher_page(api: Api) -> None:
    with api.client() as client:
        by_name = client.get(f"/authors/{PRANGE}")
        page_path = by_name.headers["location"]
        researcher_id = page_path.removeprefix("/researchers/").split("-")[0]
        bare = client.get(f"/researchers/{researcher_id}")
        misnamed = client.get(f"/researchers/{researcher_id}-someone-else")
        page = client.get(page_path)

    assert by_name.status_code == 308
    assert page_path == f"/researchers/{researcher_id}-jakob-prange"
    assert (bare.status_code, bare.headers["location"]) == (308, page_path)
    assert (misnamed.status_code, misnamed.headers["location"]) == (308, page_path)
    assert page.status_code == 200


def _page(api: Api, name: str) -> str:
    with api.client() as client:
        response = client.get(f"/authors/{name}", follow_redirects=True)
    assert response.status_code == 200
    return response.text


def test_the_page_carries_person_json_ld_open_graph_and_the_coauthor_graph(api: Api) -> None:
    with api.key_client() as client:
        profile = _profile(client, HAJIMOLAHOSEINI)

    html = _page(api, HAJIMOLAHOSEINI)

    (ld,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    person = json.loads(ld)
    assert (person["@type"], person["name"]) == ("Person", HAJIMOLAHOSEINI)
    assert person["url"].endswith(profile["path"])
    assert f'<meta property="og:title" content="{HAJIMOLAHOSEINI}">' in html
    assert f"<title>{HAJIMOLAHOSEINI} \u2013 paperchat</title>" in html
    assert '<meta name="description" content="Habib Hajimolahoseini: 4 papers' in html
    svg = re.search(r"<svg class=\"network\".*?</svg>", html, re.S)
    assert svg is not None
    # The drawing's links are out of the tab order: the list beside it is what one tabs to.
    linked = re.findall(r'<a href="/researchers/([a-z2-7]+)-[a-z0-9-]+" tabindex="-1">', svg[0])
    assert linked == [c["id"] for c in profile["coauthors"][:12]]
    assert "Matched by name: older work may be missing" in html


def test_a_reported_wrong_match_is_recorded(api: Api, api_settings: Settings) -> None:
    with api.client() as client:
        page = client.get(f"/authors/{PRANGE}")
        path = page.headers["location"]
        sent = client.post(
            f"{path}/reports", data={"paper": "2302.08150", "note": "a namesake's paper"}
        )

    assert sent.status_code == 303
    assert sent.headers["location"] == f"{path}?reported=1"
    report = match_reports(api_settings.data_dir)[-1]
    assert (report["researcher"], report["paper"], report["note"]) == (
        path.removeprefix("/researchers/").split("-")[0],
        "2302.08150",
        "a namesake's paper",
    )


def test_a_name_several_researchers_may_have_shows_a_chooser(api: Api) -> None:
    # Lei Fan and Ling Fan are both among the first 150 real abstracts: "L. Fan" is either.
    with api.key_client() as client:
        found = client.get("/api/researchers", params={"name": "L. Fan"}).json()["results"]
    with api.client() as client:
        chooser = client.get("/authors/L.%20Fan")

    names = {r["name"] for r in found}
    assert {"Lei Fan", "Ling Fan"} <= names
    assert chooser.status_code == 300
    for researcher in found:
        assert f'<a href="{researcher["path"]}">' in chooser.text


def test_a_profile_lists_its_papers_a_page_at_a_time(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pages of two papers, for Jakob Prange's three. The host is one no other test asks
    # for: the pages kept for every reader are kept per site address.
    monkeypatch.setattr(researchers, "RESEARCHER_PAGE_PAPERS", 2)
    host = {"host": "paged.test"}
    with api.client() as client:
        path = client.get(f"/authors/{PRANGE}").headers["location"]
        first = client.get(path, headers=host)
        second = client.get(f"{path}?page=2", headers=host)
        markdown = client.get(f"{path}.md", headers=host)
        past = client.get(f"{path}?page=3", headers=host)
        absurd = client.get(f"{path}?page=100000", headers=host)

    listed = [re.findall(r'data-paper="([^"]+)"', r.text) for r in (first, second)]
    assert [len(ids) for ids in listed] == [2, 1]
    assert not set(listed[0]) & set(listed[1])
    assert "3 papers in this index; page 1 of 2." in first.text
    assert "3 papers in this index; page 2 of 2." in second.text
    assert f'<a href="{path}?page=2">2</a>' in first.text
    assert f'<a aria-current="page" href="{path}?page=2">2</a>' in second.text
    assert f'<link rel="canonical" href="http://paged.test{path}?page=2">' in second.text
    report_options = re.findall(r'<option value="(\d[^"]*)"', second.text)
    assert report_options == listed[1]
    assert f"Next page: <http://paged.test{path}.md?page=2>" in markdown.text
    assert past.status_code == 404
    assert absurd.status_code == 422
