"""Records written to break the pages: markup, scripts, control characters, TeX commands,
spreadsheet formulas, broken dates and affiliations, read as a metadata file's records
are, then shown as a paper's page and Markdown, its first author's researcher page and
its institution's page. No record takes its page down (no 5xx), and no markup of a record
reaches a page as markup. A few derandomised examples each in the suite; `FUZZ_EXAMPLES`
runs more (`tests/support/worlds/fuzzing.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import count
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from chat.library.institutions import find_institutions
from chat.library.researchers import researcher_path
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.sources.metadata import paper_from_record
from tests.support.worlds.fuzzing import fuzz_settings
from tests.support.worlds.records import add_records, records_site

pytestmark = pytest.mark.timeout(300)

FUZZ = fuzz_settings(examples=30, deadline_s=10)
MARKUP = "<script>alert(1)</script>"
# What a hostile record's fields are made of: markup, comment and CDATA ends, entities, TeX
# commands a LaTeX run would obey, formulas, the author list's own separators, line and
# paragraph separators, bidirectional marks, and every C0 and C1 control character.
PIECES = [
    MARKUP, "<!--<script>", "-->", "]]>", "&amp;", "&#0;", "\\input{/etc/passwd}",
    "\\write18{rm -rf}", "\\immediate", '=HYPERLINK("http://x")', "+1", "@SUM(1)", "{\\'e}",
    '\\"o', "$x^2_{i}$", "\\", "{", "}", "$", "^", "_", "%", "#", "~", "(", ")", "[", "]",
    ";", ",", " and ", "&", "et al.", "Jr.", " ", "\n", "\r\n", "\t", "\u2028", "\u2029",
    "\ufeff", "\u200b", "\u202e", "\ufffd", "\U0001f600", "é", "İ", "ﬁ", "²", "一",
    *(chr(c) for c in [*range(32), *range(127, 160)]),
]  # fmt: skip
field = st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=10).map("".join)
names = st.lists(field, min_size=1, max_size=4)
ids = count(1)


def _record(
    title: str, abstract: str, authors: list[str], affiliation: str, extra: str
) -> dict[str, Any]:
    return {
        "id": f"2999.{next(ids):05d}",
        "title": f"Title {title}",
        "abstract": f"Abstract {abstract}",
        "authors": ", ".join(f"Ada{n} Lovelace {name}" for n, name in enumerate(authors)),
        "affiliations": [[f"University {affiliation}"] for _ in authors],
        "categories": f"cs.CR {extra}",
        "comments": extra,
        "journal-ref": extra,
        "doi": f"10.1234/{extra}",
        "update_date": extra,
        "versions": [{"version": "v1", "created": extra}],
    }


records = st.builds(_record, field, field, names, field, field)


@pytest.fixture(scope="module", name="fuzz_site")
def fuzz_site_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    seed = Paper(id="2401.00001", title="A plain paper", abstract="Plain.", authors="Ann Lee")
    with records_site(tmp_path_factory.mktemp("fuzz-site"), [seed]) as client:
        # The first page opens the vector store and the readers: not the examples' time.
        assert client.get("/papers/2401.00001", follow_redirects=True).status_code == 200
        yield client


def _catalog(site: TestClient) -> Catalog:
    catalog: Catalog = site.app.state.services.index.catalog  # type: ignore[attr-defined]  # an ASGI app, typed as such
    return catalog


def _ingested(site: TestClient, record: dict[str, Any]) -> Paper | None:
    """The record as ingest reads it into the library; None for one ingest refuses."""
    try:
        paper = paper_from_record(record)
    except ValueError:
        return None
    add_records(_catalog(site), [paper])
    return paper


def _shown(site: TestClient, path: str) -> str:
    response = site.get(path, follow_redirects=True)
    assert response.status_code < 500, (path, response.status_code, response.text[:500])
    assert response.status_code in (200, 404), (path, response.status_code)
    assert MARKUP not in response.text, path
    return response.text


@FUZZ
@given(records)
def test_a_hostile_record_never_takes_its_paper_page_or_markdown_down(
    fuzz_site: TestClient, record: dict[str, Any]
) -> None:
    paper = _ingested(fuzz_site, record)
    if paper is None:
        return

    html = _shown(fuzz_site, f"/papers/{paper.id}")
    markdown = _shown(fuzz_site, f"/papers/{paper.id}.md")

    assert paper.id in html
    assert paper.id in markdown


@FUZZ
@given(records)
def test_a_hostile_record_never_takes_its_researcher_or_institution_page_down(
    fuzz_site: TestClient, record: dict[str, Any]
) -> None:
    paper = _ingested(fuzz_site, record)
    if paper is None:
        return
    catalog = _catalog(fuzz_site)
    person = catalog.person(paper.authors.split(",")[0])
    institutions = find_institutions(catalog, "University")

    if person is not None and person.names:
        path = researcher_path(person)
        for shown in (path, f"{path}.md"):
            _shown(fuzz_site, shown)
    for each in institutions[:2]:
        for shown in (each.path, f"{each.path}.md"):
            _shown(fuzz_site, shown)
