"""Pages and feeds over records written to break them, served with `PAPERCHAT_PUBLIC_URL` set:
a name holding `<!--<script>` stays inside its JSON-LD, a Host header never reaches a link,
a feed stays XML whatever its address holds, and a follow asked for eight times at once is
made once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import html5lib
import httpx
import pytest
from lxml import etree

from tests.fakes.openai import FakeOpenAI
from tests.support.running.concurrency import at_once
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    fake_llm_fixture,
    fresh_upstream_fixture,
    serve_index,
)

pytestmark = pytest.mark.timeout(300)

PUBLIC = "https://papers.example.org"
EVIL = "evil.example"
OPENER = "<!--<script>"
HOSTILE_NAME = f"Eve {OPENER} Hostile"
HOSTILE_INSTITUTION = f"{OPENER} Institute"
XHTML = "{http://www.w3.org/1999/xhtml}"
RECORDS = [
    {
        "id": "2401.00101",
        "title": f"Comments that open scripts: {OPENER} in metadata",
        "abstract": "A record whose author and affiliation open an HTML comment and a script.",
        "authors": f"{HOSTILE_NAME}, Bob Plain",
        "affiliations": [[HOSTILE_INSTITUTION], ["Plain University"]],
        "categories": "cs.CR",
        "update_date": "2024-01-02",
    },
    {
        "id": "2401.00102",
        "title": "A plain second paper by the same author",
        "abstract": "Nothing hostile here: a second paper, so the feeds list two.",
        "authors": f"{HOSTILE_NAME}, Carol Plain",
        "categories": "cs.CR cs.CL",
        "update_date": "2024-01-03",
    },
]


@pytest.fixture(scope="module")
def hostile(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path, fake_llm: FakeOpenAI
) -> Iterator[Api]:
    """The two records indexed and served, the public address configured."""
    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items

    root = tmp_path_factory.mktemp("hostile")
    records = root / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    pipeline = Pipeline(index.catalog, index.indexer, index.embedder.embed, NoProgress())
    pipeline.run(metadata_items(records, index.embedder.count_tokens), IngestReport())
    try:
        yield from serve_index(index, fake_llm, root / "db.sqlite", public_url=f"{PUBLIC}/")
    finally:
        index.close()


def _page(api: Api, path: str) -> str:
    with api.client(Host=EVIL) as client:
        response = client.get(path, follow_redirects=True)
    assert response.status_code == 200, response.text
    return response.text


def _parsed(html: str) -> Any:
    return html5lib.parse(html, namespaceHTMLElements=True)


def _json_ld(html: str) -> list[dict[str, Any]]:
    tree = _parsed(html)
    scripts = tree.findall(f".//{XHTML}script[@type='application/ld+json']")
    return [json.loads(s.text) for s in scripts]


@pytest.mark.parametrize(
    ("path", "held"),
    [
        (f"/authors/{quote(HOSTILE_NAME)}", HOSTILE_NAME),
        ("/papers/2401.00101", "<script> Hostile"),
    ],
)
def test_a_name_that_opens_a_script_stays_inside_its_json_ld(
    hostile: Api, path: str, held: str
) -> None:
    html = _page(hostile, path)

    tree = _parsed(html)
    (data,) = _json_ld(html)
    assert held in json.dumps(data, ensure_ascii=False)
    assert OPENER not in tree.find(f".//{XHTML}script[@type='application/ld+json']").text
    assert tree.find(f".//{XHTML}main") is not None
    assert tree.find(f".//{XHTML}footer") is not None
    dock = [s for s in tree.iter(f"{XHTML}script") if s.get("src") == "/dock.js"]
    assert len(dock) == 1


def test_an_institution_that_opens_a_script_stays_inside_its_json_ld(hostile: Api) -> None:
    with hostile.key_client() as client:
        matches = client.get("/api/institutions", params={"name": "Institute"}).json()
    (match,) = matches["results"]

    html = _page(hostile, f"/institutions/{match['id']}")

    tree = _parsed(html)
    (data,) = _json_ld(html)
    assert data["name"] == HOSTILE_INSTITUTION
    assert tree.find(f".//{XHTML}main") is not None
    assert tree.find(f".//{XHTML}footer") is not None


def _links(html: str) -> list[str]:
    tree = _parsed(html)
    canonical = tree.find(f".//{XHTML}link[@rel='canonical']").get("href")
    (data,) = _json_ld(html)
    return [canonical, data["@id"], data["url"]]


def test_pages_link_the_public_address_whatever_the_host_header(hostile: Api) -> None:
    with hostile.key_client() as client:
        (match,) = client.get("/api/institutions", params={"name": "Institute"}).json()["results"]

    researcher = _links(_page(hostile, f"/authors/{quote(HOSTILE_NAME)}"))
    institution = _links(_page(hostile, f"/institutions/{match['id']}"))

    assert all(link.startswith(f"{PUBLIC}/researchers/") for link in researcher)
    assert all(link.startswith(f"{PUBLIC}/institutions/") for link in institution)


def _feed_links(document: bytes) -> list[str]:
    root = etree.fromstring(document)
    atom = "{http://www.w3.org/2005/Atom}"
    hrefs = [link.get("href") for link in root.iter(f"{atom}link")]
    return [*hrefs, root.findtext(f"{atom}id")]


@pytest.mark.parametrize("path", ["/feeds/latest.atom", "/feeds/categories/cs.CR.atom"])
def test_feeds_link_the_public_address_whatever_the_host_header(hostile: Api, path: str) -> None:
    with hostile.client(Host=EVIL) as client:
        response = client.get(path)

    links = _feed_links(response.content)
    assert len(links) == 5
    assert all(link.startswith(f"{PUBLIC}/") for link in links)
    assert EVIL not in response.text


def test_the_private_feed_address_is_the_public_one(hostile: Api) -> None:
    with hostile.key_client() as client:
        client.headers["Host"] = EVIL
        response = client.post("/api/feeds/private")

    assert response.status_code == 201
    token = response.json()["token"]
    assert response.json()["url"] == f"{PUBLIC}/feeds/private/{token}.atom"


@pytest.mark.parametrize("control", ["\x01", "\x0b"])
def test_a_feed_asked_for_with_control_characters_is_xml(hostile: Api, control: str) -> None:
    written = quote(HOSTILE_NAME.replace(" Hostile", f"{control}Hostile"))

    with hostile.client() as client:
        response = client.get(f"/feeds/researchers/{written}.atom")

    assert response.status_code == 200
    root = etree.fromstring(response.content)
    assert (
        root.findtext("{http://www.w3.org/2005/Atom}title")
        == f"paperchat: papers by {HOSTILE_NAME}"
    )
    assert all(control not in link for link in _feed_links(response.content))


def test_eight_identical_follows_at_once_make_one_and_all_get_its_id(hostile: Api) -> None:
    key = hostile.key_for(hostile.new_user())
    answers: list[httpx.Response] = []

    def follow() -> None:
        with hostile.client(Authorization=f"Bearer {key}") as client:
            answers.append(client.post("/api/follows", json={"kind": "category", "value": "cs.CR"}))

    failures = at_once(follow, 8)

    assert failures == []
    assert sorted(r.status_code for r in answers) == [200] * 7 + [201]
    assert len({r.json()["id"] for r in answers}) == 1
