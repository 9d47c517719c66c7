"""What name recognition keeps between questions: each question's names, the dates and
words of the papers introducing a name, the number of papers, read again once the catalog
is written; and each name's match, made again only from other rows."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import chat.rag.names.recognition
from chat.rag.names.config import NamesConfig
from chat.rag.names.kept import KeptPapers
from chat.rag.names.matches import NameMatch, Recognised, match_of
from chat.rag.names.recognition import NameRecogniser
from ingest.index.catalog import Catalog
from ingest.index.lexical.analysis import terms
from ingest.index.name_catalog import NameCatalog, NameRow
from ingest.index.records import Chunk, Paper


def _one_dpr(tmp_path: Path) -> tuple[Catalog, NameCatalog]:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    _stored(catalog, "2004.04906", "2020-04", "We present the Dense Passage Retriever (DPR).")
    names = NameCatalog(catalog)
    names.backfill()
    return catalog, names


def _asked_before_and_after_a_namesake(
    catalog: Catalog, names: NameCatalog
) -> tuple[Recognised, Recognised, Recognised]:
    """DPR recognised twice, then once more after a second paper defines it."""
    recogniser = NameRecogniser(names)
    first = recogniser.recognise("What is DPR?")
    second = recogniser.recognise("Who wrote DPR?")
    _stored(catalog, "2507.23404", "2025-07", "We present Dual Prompt Routing (DPR).")
    return first, second, recogniser.recognise("How does DPR rank passages?")


def _stored(catalog: Catalog, paper_id: str, published: str, text: str) -> None:
    paper = Paper(id=paper_id, title=f"Paper {paper_id}", abstract=text, authors="A. Author",
                  published=published)  # fmt: skip
    chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, text, "Abstract", 0, 0, paper)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])
        NameCatalog(catalog).replace_papers([paper_id])


def test_a_questions_names_are_read_again_once_a_paper_introducing_one_arrives(
    tmp_path: Path,
) -> None:
    catalog, names = _one_dpr(tmp_path)
    recogniser = NameRecogniser(names)
    first = recogniser.recognise("What is DPR?")

    again = recogniser.recognise("What is DPR?")
    _stored(catalog, "2507.23404", "2025-07", "We present Dual Prompt Routing (DPR).")
    after = recogniser.recognise("What is DPR?")

    assert again is first
    (before,) = first.matches
    (now,) = after.matches
    assert before.introducers == ("2004.04906",)
    assert set(now.introducers) == {"2004.04906", "2507.23404"}


def test_an_introducers_words_and_date_follow_the_catalog(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    _stored(catalog, "2004.04906", "2020-04", "Dense passages for open questions.")
    kept = KeptPapers(catalog)

    dated = kept.read(["2004.04906", "9999.99999"], with_words=False)
    worded = kept.read(["2004.04906"], with_words=True)
    _stored(catalog, "2004.04906", "2020-05", "Sparse retrieval of tables.")
    rewritten = kept.read(["2004.04906"], with_words=True)

    assert list(dated) == ["2004.04906"]
    assert dated["2004.04906"].published == "2020-04"
    assert worded["2004.04906"].words == frozenset(
        terms("Paper 2004.04906 Dense passages for open questions.")
    )
    assert rewritten["2004.04906"].published == "2020-05"
    assert "tabl" in rewritten["2004.04906"].words
    assert "dens" not in rewritten["2004.04906"].words


def test_the_catalog_gives_the_dates_of_the_papers_it_holds(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    _stored(catalog, "2004.04906", "2020-04", "Dense passages.")
    _stored(catalog, "2005.11401", "", "Generation with retrieval.")

    dates = catalog.published_among(["2004.04906", "2005.11401", "9999.99999"])

    assert dates == {"2004.04906": "2020-04", "2005.11401": ""}


def test_a_names_match_is_made_once_for_the_rows_the_catalog_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog, names = _one_dpr(tmp_path)
    made: list[str] = []

    def counting(name: str, asked: str, rows: Sequence[NameRow], config: NamesConfig) -> NameMatch:
        made.append(name)
        return match_of(name, asked, rows, config)

    monkeypatch.setattr(chat.rag.names.recognition, "match_of", counting)
    first, second, after = _asked_before_and_after_a_namesake(catalog, names)

    assert made == ["DPR", "DPR"]
    assert first.matches == second.matches
    assert set(after.matches[0].definers) == {"2004.04906", "2507.23404"}


def test_the_number_of_papers_is_counted_once_while_the_catalog_stays_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog, names = _one_dpr(tmp_path)
    counted: list[int] = []
    count = names.paper_count

    def counting() -> int:
        counted.append(count())
        return counted[-1]

    monkeypatch.setattr(names, "paper_count", counting)
    first, second, after = _asked_before_and_after_a_namesake(catalog, names)

    assert counted == [1, 2]
    assert (first.papers_in_index, second.papers_in_index, after.papers_in_index) == (1, 1, 2)
