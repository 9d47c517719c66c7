"""A paper page's head as machines read it: the Highwire Press `citation_*` tags that
reference managers save a paper from, schema.org's ScholarlyArticle, Open Graph, the
canonical link; each checked against the catalog's record, the page read by an HTML parser."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest

from ingest.index.names.people import written_names
from ingest.index.paths import paper_path
from ingest.index.tex import readable_tex
from tests.chat.service.web.conftest import OLD_STYLE_ID, PAPER_ID, XSS, XSS_ID
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)


@dataclass
class Head(HTMLParser):
    """A page's `<title>`, meta tags (name or property, in order), links and JSON-LD."""

    title: str = ""
    metas: list[tuple[str, str]] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    json_ld: list[str] = field(default_factory=list)
    _in: str = ""

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "meta" and ("name" in values or "property" in values):
            self.metas.append((values.get("name") or values["property"], values["content"]))
        elif tag == "link" and "rel" in values:
            self.links[values["rel"]] = values["href"]
        elif tag == "title" or (tag == "script" and values.get("type") == "application/ld+json"):
            self._in = tag

    def handle_endtag(self, tag: str) -> None:
        self._in = ""

    def handle_data(self, data: str) -> None:
        if self._in == "title":
            self.title += data
        elif self._in == "script":
            self.json_ld.append(data)

    def named(self, name: str) -> list[str]:
        return [content for key, content in self.metas if key == name]


def head_of(web: Api, paper_id: str) -> Head:
    record = web.services.index.catalog.get_paper(paper_id)
    assert record is not None
    with web.client() as client:
        response = client.get(paper_path(record.id, record.title))
    assert response.status_code == 200
    head = Head()
    head.feed(response.text)
    return head


@pytest.mark.parametrize("paper_id", [PAPER_ID, OLD_STYLE_ID, XSS_ID])
def test_citation_tags_are_the_catalogs_record(web: Api, paper_id: str) -> None:
    record = web.services.index.catalog.get_paper(paper_id)
    assert record is not None
    head = head_of(web, paper_id)

    assert head.named("citation_title") == [readable_tex(record.title)]
    assert head.named("citation_author") == [readable_tex(n) for n in written_names(record.authors)]
    assert head.named("citation_publication_date") == [record.published.replace("-", "/")]
    assert head.named("citation_arxiv_id") == [record.id]
    assert head.named("citation_pdf_url") == [f"https://arxiv.org/pdf/{record.id}"]
    assert head.named("citation_doi") == [f"10.48550/arXiv.{record.id}"]
    assert head.named("citation_abstract") == [" ".join(readable_tex(record.abstract).split())]


def test_a_markup_title_stays_text_in_every_tag(web: Api) -> None:
    head = head_of(web, XSS_ID)

    assert head.named("citation_title") == [XSS]
    assert head.named("og:title") == [XSS]
    assert json.loads(head.json_ld[0])["headline"] == XSS


def test_json_ld_is_a_scholarly_article_of_the_record(web: Api) -> None:
    record = web.services.index.catalog.get_paper(PAPER_ID)
    assert record is not None
    head = head_of(web, PAPER_ID)

    (article,) = [json.loads(block) for block in head.json_ld]
    assert article["@type"] == "ScholarlyArticle"
    assert article["headline"] == readable_tex(record.title)
    assert [a["name"] for a in article["author"]] == [
        readable_tex(n) for n in written_names(record.authors)
    ]
    assert article["datePublished"] == record.published
    assert {"propertyID": "arXiv", "value": PAPER_ID}.items() <= article["identifier"][0].items()
    assert article["url"] == head.links["canonical"]


def test_open_graph_title_description_and_canonical_link(web: Api) -> None:
    record = web.services.index.catalog.get_paper(OLD_STYLE_ID)
    assert record is not None
    head = head_of(web, OLD_STYLE_ID)
    title = readable_tex(record.title)

    assert head.title.startswith(title)
    assert head.links["canonical"] == f"{web.base_url}{paper_path(record.id, record.title)}"
    assert head.named("og:url") == [head.links["canonical"]]
    assert head.named("og:title") == [title]
    assert head.named("og:type") == ["article"]
    (description,) = head.named("description")
    assert description
    assert description == head.named("og:description")[0]
    assert description.split()[:4] == readable_tex(record.abstract).split()[:4]
    assert head.named("twitter:card") == ["summary"]
