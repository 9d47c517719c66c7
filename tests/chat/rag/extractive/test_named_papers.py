"""The papers a question's recognised names are the own names of count as about them."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import compose, named_papers
from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.sources import Source
from tests.chat.rag.extractive.conftest import source

pytestmark = pytest.mark.timeout(60)

QUESTION = "What top-1 accuracy does the best Vision Transformer reach on ImageNet?"
VIT = "2010.11929"


def _sources() -> list[Source]:
    return [
        source(1, "2603.22570", "On ImageNet-1k classification, CanViT-B reaches 81.2% top-1 "
               "accuracy with frozen teacher probes.", kind="abstract"),
        source(2, "2602.24144", "Across ImageNet subsets, RETA reaches 64.3% top-1 accuracy "
               "on ImageNet-1K with ResNet-18 at 50 images per class.", kind="abstract"),
        source(3, VIT, "In particular, the best model reaches the accuracy of 88.55% on "
               "ImageNet, 90.72% on ImageNet-ReaL and 94.55% on CIFAR-100."),
    ]  # fmt: skip


def _vit(written: str = "Vision Transformer", *introducers: str) -> Recognised:
    match = NameMatch(
        "ViT", "ViT", ("Vision Transformer",), (VIT,), introducers=introducers, written=written
    )
    return Recognised((match,))


def test_answer_leads_with_the_named_papers_value_though_it_never_prints_the_name() -> None:
    sources = _sources()

    unnamed = compose(QUESTION, sources)
    named = compose(QUESTION, sources, named={VIT})

    assert unnamed.sentences[0].source.id != VIT
    assert named.sentences[0].source.id == VIT
    assert "88.55%" in named.sentences[0].text


def test_named_paper_is_the_names_own_paper_the_sources_rank_first() -> None:
    sources = _sources()
    names = _vit("Vision Transformer", "2501.00001", "2602.24144", VIT)

    papers = named_papers(names, sources)

    assert papers == frozenset({"2602.24144"})


def test_long_form_spelt_out_in_lower_case_names_no_paper() -> None:
    sources = _sources()

    lower = named_papers(_vit("vision transformer", VIT), sources)
    capitalised = named_papers(_vit("Vision Transformer", VIT), sources)

    assert lower == frozenset()
    assert capitalised == frozenset({VIT})


def test_sources_of_one_paper_need_no_named_paper() -> None:
    sources = [s for s in _sources() if s.id == VIT]

    papers = named_papers(_vit("Vision Transformer", VIT), sources)

    assert papers == frozenset()
