"""A paper page saved the way Zotero's Embedded Metadata translator saves it: as a preprint
that keeps its arXiv id (Archive ID `arXiv:ID`, arXiv's DOI, the arxiv.org page), its whole
abstract, every author in order and the first submission's date, read from the served page."""

from __future__ import annotations

import pytest

from ingest.index.names.people import written_names
from ingest.index.paths import paper_path
from ingest.index.tex import readable_tex
from tests.chat.service.web.conftest import OLD_STYLE_ID, PAPER_ID, XSS_ID
from tests.support.running.server import Api
from tests.support.zotero import embedded_item

pytestmark = pytest.mark.timeout(180)


def _one_line(text: str) -> str:
    return " ".join(readable_tex(text).split())


@pytest.mark.parametrize("paper_id", [PAPER_ID, OLD_STYLE_ID, XSS_ID])
def test_zotero_saves_a_paper_page_as_the_arxiv_preprint(web: Api, paper_id: str) -> None:
    record = web.services.index.catalog.get_paper(paper_id)
    assert record is not None
    with web.client() as client:
        html = client.get(paper_path(record.id, record.title)).text

    item = embedded_item(html)

    assert item.item_type == "preprint"
    assert item.fields["title"] == _one_line(record.title)
    assert item.creators == [_one_line(name) for name in written_names(record.authors)]
    assert item.fields["archiveID"] == f"arXiv:{paper_id}"
    assert item.fields["DOI"] == f"10.48550/arXiv.{paper_id}"
    assert item.fields["url"] == f"https://arxiv.org/abs/{paper_id}"
    assert item.fields["repository"] == "arXiv"
    assert item.fields["abstractNote"] == _one_line(record.abstract)
    assert item.fields["date"] == record.published.replace("-", "/")


def test_the_saved_abstract_is_whole_where_the_description_is_cut(web: Api) -> None:
    record = web.services.index.catalog.get_paper(PAPER_ID)
    assert record is not None
    with web.client() as client:
        html = client.get(paper_path(record.id, record.title)).text

    item = embedded_item(html)

    assert len(_one_line(record.abstract)) > 300
    assert item.fields["abstractNote"] == _one_line(record.abstract)
    assert item.fields["abstractNote"].endswith(_one_line(record.abstract)[-40:])
