"""A source as the `sources` event shows it: its paper's canonical page beside the fields the
contract has always had."""

from __future__ import annotations

import pytest

from chat.rag.sources import Source

CONTRACT_FIELDS = {"n", "id", "title", "chunk_id", "kind", "section", "page", "snippet", "score"}


def _source(paper_id: str, title: str, is_arxiv: bool = True) -> Source:
    return Source(
        n=1, id=paper_id, is_arxiv=is_arxiv, title=title, chunk_id=f"{paper_id}::c0",
        kind="fulltext", section="Method", page=2, text="A passage.", score=0.5,
        url=f"https://arxiv.org/abs/{paper_id}",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("paper_id", "title", "is_arxiv", "path"),
    [
        ("1706.03762", "Attention Is All", True, "/papers/1706.03762-attention-is-all"),
        ("hep-th/9901001", "Strings on AdS$_5$", True, "/papers/hep-th/9901001-strings-on-ads5"),
        ("doc-3f2a", "A Note", False, "/papers/doc-3f2a"),
        ("2401.00001", "∑∑", True, "/papers/2401.00001"),
    ],
)  # fmt: skip
def test_the_event_names_its_papers_canonical_page(
    paper_id: str, title: str, is_arxiv: bool, path: str
) -> None:
    event = _source(paper_id, title, is_arxiv).as_event()

    assert event["path"] == path
    assert CONTRACT_FIELDS | {"url"} <= set(event)
    assert event["url"] == f"https://arxiv.org/abs/{paper_id}"
