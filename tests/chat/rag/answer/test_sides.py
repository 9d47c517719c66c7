"""Two papers compared: each side read as a paper, each asked on its own, and the answer
quoting each paper's own passages under its name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from chat.rag.answer.sides import (
    Side,
    compared_sides,
    side_by_side,
    side_by_side_answer,
    stated_search,
    with_stated,
)
from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.sources import Source
from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper

PALM, OPT, BERT, TRANSFORMER, PLAIN, RAG = (
    "2204.02311", "2205.01068", "1810.04805", "1706.03762", "2203.00130", "2005.11401",
)  # fmt: skip
TITLES = {
    PALM: "PaLM: Scaling Language Modeling with Pathways",
    OPT: "OPT: Open Pre-trained Transformer Language Models",
    BERT: "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
    TRANSFORMER: "Attention Is All You Need",
    PLAIN: "Paper Plain: Making Medical Research Papers Approachable to Healthcare Consumers",
    RAG: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
}


@pytest.fixture(name="catalog")
def catalog_fixture(tmp_path: Path) -> Catalog:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    for paper_id, title in TITLES.items():
        paper = Paper(id=paper_id, title=title, abstract="An abstract.", authors="A. Author",
                      published="2020-01")  # fmt: skip
        chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, "An abstract.", "", 0, 0, paper)
        with catalog.transaction():
            catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])
    return catalog


def _named(*names: tuple[str, str]) -> Recognised:
    return Recognised(tuple(NameMatch(n, n, (), (p,), introducers=(p,)) for n, p in names))


def _recogniser(*names: tuple[str, str]) -> Callable[[str], Recognised]:
    """A names catalog that finds `names` in a question, and knows RAG read on its own."""

    def recognise(text: str) -> Recognised:
        if text.endswith("?"):
            return _named(*names)
        return _named(("RAG", RAG)) if text == "RAG" else Recognised()

    return recognise


def _papers(sides: tuple[Side, Side] | None) -> tuple[str, ...]:
    return tuple(side.paper for side in sides) if sides else ()


@pytest.mark.parametrize(
    ("question", "names", "papers"),
    [
        ("Which has more parameters, OPT-175B or PaLM?", (("PaLM", PALM),), (OPT, PALM)),
        ("Was PaLM or OPT pre-trained on more tokens?", (("PaLM", PALM),), (PALM, OPT)),
        (
            "Does the base Transformer of Attention Is All You Need have more encoder layers"
            " than BERT-base?",
            (),
            (TRANSFORMER, BERT),
        ),
        ("Do PaLM and BERT-large use the same tokenizer?", (("PaLM", PALM),), (PALM, BERT)),
        (
            "Which user study had more participants, Paper Plain's usability study or PaLM's?",
            (("PaLM", PALM),),
            (PLAIN, PALM),
        ),
        ("Which scores higher on NQ, PaLM or RAG-Sequence?", (("PaLM", PALM),), (PALM, RAG)),
    ],
)
def test_each_side_is_read_as_its_paper(
    catalog: Catalog, question: str, names: tuple[tuple[str, str], ...], papers: tuple[str, ...]
) -> None:
    assert _papers(compared_sides(question, catalog, _recogniser(*names))) == papers


@pytest.mark.parametrize(
    "question",
    [
        "Which is better for image classification, a cat or a dog?",  # no paper either side
        "Which came first, PaLM or BERT?",  # a question of the records
        "Does PaLM use more tokens than PaLM-Coder?",  # one paper both sides
    ],
)
def test_what_compares_no_two_papers_is_left_alone(catalog: Catalog, question: str) -> None:
    assert compared_sides(question, catalog, _recogniser(("PaLM", PALM))) is None


def test_each_paper_is_asked_for_its_number_without_the_other_named(catalog: Catalog) -> None:
    sides = compared_sides(
        "Which has more parameters, OPT-175B or PaLM?", catalog, _recogniser(("PaLM", PALM))
    )

    assert sides is not None
    assert [side.question for side in sides] == [
        "How many parameters OPT-175B?",
        "How many parameters PaLM?",
    ]
    assert [side.label for side in sides] == ["OPT-175B", "PaLM"]
    # Each paper is searched for the question less the other paper's name.
    assert [side.search for side in sides] == [
        "Which has more parameters OPT-175B",
        "Which has more parameters PaLM",
    ]


def test_what_a_count_compares_is_what_each_paper_is_asked_how_many_of(catalog: Catalog) -> None:
    sides = compared_sides(
        "Was PaLM or OPT-175B pre-trained on more tokens?", catalog, _recogniser(("PaLM", PALM))
    )
    heads = compared_sides(
        "Do PaLM and BERT-large use the same number of attention heads?",
        catalog,
        _recogniser(("PaLM", PALM)),
    )

    assert sides is not None
    assert heads is not None
    assert sides[0].question == "How many tokens PaLM pre-trained on?"
    assert heads[0].question == "How many attention heads PaLM use?"
    assert heads[1].counted == "attention heads"


def test_each_side_keeps_its_own_model_and_drops_the_others(catalog: Catalog) -> None:
    largest = compared_sides(
        "Which has more parameters, the largest PaLM model or the largest OPT model?",
        catalog,
        _recogniser(("PaLM", PALM)),
    )
    big = compared_sides(
        "Do the big Transformer of Attention Is All You Need and BERT-large use the same"
        " number of attention heads?",
        catalog,
        _recogniser(),
    )

    assert largest is not None
    assert [side.question for side in largest] == [
        "How many parameters the largest PaLM model?",
        "How many parameters the largest OPT model?",
    ]
    assert largest[0].search == "Which has more parameters the largest PaLM model"
    assert big is not None
    assert [side.label for side in big] == ["Attention Is All You Need", "BERT-large"]
    assert [side.question for side in big] == [
        "How many attention heads big Transformer use?",
        "How many attention heads BERT-large use?",
    ]
    assert [side.kept for side in big] == [("big", "transformer"), ("large",)]


def test_the_size_of_models_compared_is_asked_as_their_parameters(catalog: Catalog) -> None:
    sides = compared_sides(
        "Are the largest PaLM model and the largest OPT model the same size?",
        catalog,
        _recogniser(("PaLM", PALM)),
    )

    assert sides is not None
    assert [side.question for side in sides] == [
        "How many parameters largest PaLM model?",
        "How many parameters largest OPT model?",
    ]
    assert [side.counted for side in sides] == ["parameters", "parameters"]


def test_a_side_written_as_its_model_keeps_the_models_size(catalog: Catalog) -> None:
    sides = compared_sides(
        "Does the base Transformer of Attention Is All You Need have more encoder layers"
        " than BERT-base?",
        catalog,
        _recogniser(("BERT-base", BERT)),
    )

    assert sides is not None
    assert [side.question for side in sides] == [
        "How many encoder layers base Transformer have?",
        "How many encoder layers BERT-base?",
    ]
    assert [side.kept for side in sides] == [("base", "transformer"), ("base",)]
    assert sides[1].search == "Does have more encoder layers BERT-base"


def _source(paper: str, number: int, text: str) -> Source:
    return Source(
        n=number, id=paper, is_arxiv=True, title=TITLES[paper], chunk_id=f"{paper}#f{number}",
        kind="fulltext", section="2 Model", page=2, text=text, score=1.0 / number,
        url=f"https://arxiv.org/abs/{paper}",
    )  # fmt: skip


def _retrieved(*sources: Source) -> Retrieved:
    return Retrieved(sources, (), (), {"retrieval_ms": 5.0})


def test_the_answer_quotes_each_paper_under_its_name() -> None:
    sides = [
        Side(OPT, "OPT", "How many parameters?"),
        Side(PALM, "PaLM", "How many parameters?"),
    ]
    retrievals = [
        _retrieved(
            _source(OPT, 1, "We release models ranging from 125M to 175B parameters."),
            _source(OPT, 2, "The tokenizer is a byte-level BPE."),
        ),
        _retrieved(_source(PALM, 1, "PaLM is a dense model of 540B parameters.")),
    ]

    first, second = side_by_side_answer(sides, retrievals)
    merged = side_by_side(sides, retrievals)

    assert first.startswith("OPT: ")
    assert "175B parameters" in first
    assert f"[arXiv:{OPT}]" in first
    assert second.startswith("PaLM: ")
    assert "540B" in second
    assert f"[arXiv:{PALM}]" in second
    assert PALM not in first
    assert OPT not in second
    assert [s.id for s in merged.sources] == [OPT, PALM, OPT]
    assert [s.n for s in merged.sources] == [1, 2, 3]
    assert merged.scoped_to == (OPT, PALM)
    assert merged.timings["retrieval_ms"] == 10.0


def test_a_paper_whose_passages_do_not_answer_says_so() -> None:
    sides = [Side(OPT, "OPT", "How many GPUs?"), Side(PALM, "PaLM", "How many GPUs?")]
    retrievals = [
        _retrieved(_source(OPT, 1, "OPT-175B was trained on 992 80GB A100 GPUs.")),
        _retrieved(_source(PALM, 1, "The vocabulary is lossless and reversible.")),
    ]

    first, second = side_by_side_answer(sides, retrievals)

    assert "992" in first
    assert second == "PaLM: nothing in its passages answers this."


def test_a_side_of_many_capitalised_words_costs_a_few_lookups(catalog: Catalog) -> None:
    asked: list[str] = []

    def recognise(text: str) -> Recognised:
        if text.endswith("?"):  # the question's own names, read once
            return _named(("PaLM", PALM))
        asked.append(text)
        return Recognised()

    words = " ".join(f"Zq{number}x" for number in range(700))
    sides = compared_sides(f"Was {words} or PaLM better?", catalog, recognise)

    assert sides is None
    assert len(asked) <= 6


def test_a_count_is_quoted_where_the_paper_states_it_in_its_notation() -> None:
    sides = [
        Side(BERT, "BERT-large", "How many layers BERT-large?", counted="layers",
             kept=("large",)),
        Side(PALM, "PaLM", "How many tokens PaLM pre-trained on?", counted="tokens"),
    ]  # fmt: skip
    retrievals = [
        _retrieved(
            _source(BERT, 1, "For BERT-large, we concatenate the top four hidden layers."),
            _source(BERT, 2, "We denote the number of layers (i.e., Transformer blocks) as L."),
            _source(
                BERT,
                3,
                "We report results on two model sizes: BERT-base (L=12, H=768,"
                " A=12) and BERT-large (L=24, H=1024, A=16).",
            ),
        ),
        _retrieved(
            _source(PALM, 1, "The PaLM pre-training dataset held 39B code tokens in total."),
            _source(PALM, 2, "We train a dense Transformer on 780 billion tokens of text."),
        ),
    ]

    first, second = side_by_side_answer(sides, retrievals)

    assert first.startswith("BERT-large: We report results on two model sizes")
    # Not the sentence sharing the most words, which counts only its code.
    assert second.startswith("PaLM: We train a dense Transformer on 780 billion tokens")


def test_a_count_is_searched_for_again_in_the_papers_notation() -> None:
    side = Side(BERT, "BERT-large", "How many layers BERT-large?", counted="layers")
    defined = _source(BERT, 1, "We denote the number of layers as L, the hidden size as H.")
    plain = _source(BERT, 1, "BERT is a bidirectional Transformer encoder.")
    stated = _retrieved(
        _source(BERT, 1, "We denote the number of layers as L, the hidden size as H."),
        _source(BERT, 5, "BERT-base (L=12) and BERT-large (L=24)."),
    )

    assert stated_search(side, [defined]) == "BERT-large L="
    assert stated_search(side, [plain]) == "number of layers BERT-large"
    assert stated_search(replace(side, counted=""), [defined]) == ""
    # A model's parameters are searched for where the paper lists its models' sizes.
    sized = Side(PALM, "PaLM", "How many parameters largest PaLM model?", counted="parameters")
    assert stated_search(sized, [plain]) == "PaLM model sizes parameters"
    merged = with_stated(_retrieved(defined), stated)
    assert [s.chunk_id for s in merged.sources] == [f"{BERT}#f1", f"{BERT}#f5"]


def test_of_the_sentences_stating_a_count_the_earliest_in_the_paper_leads() -> None:
    side = Side(PALM, "PaLM", "How many tokens PaLM pre-trained on?", counted="tokens")
    later = replace(
        _source(PALM, 1, "The finetuning set ExtraPythonData contains 5.8B tokens of code."),
        page=20,
    )
    first = replace(
        _source(PALM, 2, "We train a dense Transformer on 780 billion tokens of text."), page=3
    )

    (answer,) = side_by_side_answer([side], [_retrieved(later, first)])

    assert answer.startswith("PaLM: We train a dense Transformer on 780 billion tokens")
