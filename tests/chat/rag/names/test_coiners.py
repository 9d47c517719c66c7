"""Which paper a name is the own name of when the mining of definitions did not say: an
older paper the library cites that defines it (in either number), or the one paper that
prints a name no paper defines throughout."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat.rag.names.recognition import NameRecogniser
from ingest.index.catalog import Catalog
from ingest.index.name_catalog import NameCatalog
from ingest.index.records import Chunk, Paper, Reference


def _dated(catalog: Catalog, paper_id: str, published: str, text: str) -> None:
    paper = Paper(id=paper_id, title=f"Paper {paper_id}", abstract=text, authors="A. Author",
                  published=published)  # fmt: skip
    chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, text, "Abstract", 0, 0, paper)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])


@pytest.mark.parametrize(("citing", "coiner_first"), [(1, True), (0, False)])
def test_an_older_cited_definer_is_read_as_the_names_coiner(
    tmp_path: Path, citing: int, coiner_first: bool
) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    original, later = "2004.04906", "2507.23404"
    _dated(catalog, original, "2020-04", "Our dense passage retriever (DPR) indexes passages.")
    _dated(catalog, later, "2025-07", "We present a new Dense Passage Retrieval (DPR) system.")
    for number in range(citing):
        cites = f"2601.0010{number}"
        _dated(catalog, cites, "2026-01", "A reader over retrieved passages.")
        with catalog.transaction():
            catalog.replace_references(
                cites, [Reference("Dense passage retrieval", year=2020, arxiv_id=original)]
            )
    names = NameCatalog(catalog)
    names.backfill()

    recognised = NameRecogniser(names).recognise("What is DPR?")
    (match,) = [m for m in recognised.matches if m.name == "DPR"]

    assert later in match.introducers
    assert (match.own_papers[0] == original) is coiner_first


def test_an_older_cited_paper_defining_the_name_in_the_plural_is_its_coiner(
    tmp_path: Path,
) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    original, later = "1512.03385", "2503.17453"
    _dated(catalog, original, "2015-12", "We train deep residual nets (ResNets) of 152 layers.")
    _dated(catalog, later, "2025-03", "We present a Residual Network (ResNet) for emotions.")
    _dated(catalog, "2601.00100", "2026-01", "An image classifier.")
    with catalog.transaction():
        catalog.replace_references(
            "2601.00100", [Reference("Deep residual learning", year=2016, arxiv_id=original)]
        )
    names = NameCatalog(catalog)
    names.backfill()

    recognised = NameRecogniser(names).recognise("What is ResNet?")
    (match,) = [m for m in recognised.matches if m.name == "ResNet"]

    assert match.own_papers[:2] == (original, later)


@pytest.mark.parametrize(("others_print", "own"), [(1, True), (5, False)])
def test_a_name_no_paper_defines_is_the_own_name_of_the_paper_printing_it_throughout(
    tmp_path: Path, others_print: int, own: bool
) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    paper, other = "2203.02155", "2205.01068"
    _dated(catalog, paper, "2022-03", "We call the models InstructGPT. " * 30)
    _dated(catalog, other, "2022-05", "We compare with InstructGPT. " * others_print)
    names = NameCatalog(catalog)
    names.backfill()

    matches = NameRecogniser(names).recognise("Who wrote InstructGPT?").matches
    found = [m.own_papers for m in matches if m.name == "InstructGPT"]

    assert found == ([(paper,)] if own else [])


@pytest.mark.parametrize(("earlier", "still_introducer"), [(3, False), (2, True)])
def test_a_late_paper_presenting_a_long_form_many_defined_before_did_not_coin_the_name(
    tmp_path: Path, earlier: int, still_introducer: bool
) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    for number in range(earlier):
        _dated(catalog, f"2301.0010{number}", "2023-01", "We fine-tune with Low-Rank Adaptation "
               "(LoRA) under a small budget.")  # fmt: skip
    late, titled = "2510.03747", "2511.00001"
    _dated(catalog, late, "2025-10", "We propose a novel approach, Low-Rank Adaptation (LoRA) "
           "patching, which attacks deepfake defenses.")  # fmt: skip
    names = NameCatalog(catalog)
    names.backfill()

    (match,) = NameRecogniser(names).recognise("Who introduced LoRA?").matches

    assert (late in match.introducers) is still_introducer
    assert late in match.definers
    # A paper whose title names it keeps it whatever came before.
    paper = Paper(id=titled, title="LoRA: a later namesake", abstract="A method.",
                  published="2025-11")  # fmt: skip
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", titled, [
            Chunk(f"{titled}#a0", titled, "abstract", 0, "A method.", "Abstract", 0, 0, paper)
        ])  # fmt: skip
        names.replace_papers([titled])
    (match,) = NameRecogniser(names).recognise("Who introduced LoRA?").matches
    assert titled in match.introducers
