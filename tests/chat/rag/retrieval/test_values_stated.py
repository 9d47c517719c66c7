"""A question for a setting of the one paper it is scoped to gets, first, that paper's
passages that state the value, however little of the rest of the question they share."""

from __future__ import annotations

from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.searches import values_stated
from ingest.index.filters import Filters

PAPER = "1503.02531"
PASSAGES = [
    (f"{PAPER}#1", "We raise the temperature of the final softmax until the targets are soft."),
    (f"{PAPER}#2", "The same high temperature is used, but after training a temperature of 1."),
    (f"{PAPER}#3", "The small net matched the soft targets at a temperature of 20."),
    (f"{PAPER}#4", "This net achieved 67 test errors, as shown in Table 2."),
    (f"{PAPER}#5", "For the distillation we tried temperatures of [1, 2, 5, 10]."),
]
CHOSEN = [Candidate(f"{PAPER}#2", PAPER, 0.9), Candidate(f"{PAPER}#1", PAPER, 0.8)]


def _passages(paper: str) -> list[tuple[str, str]]:
    return PASSAGES if paper == PAPER else []


def test_a_scoped_question_for_a_setting_leads_with_the_passages_stating_it() -> None:
    scoped = Filters(paper_ids=(PAPER,))

    found = values_stated("What temperature do they use?", CHOSEN, Recognised(), scoped, _passages)

    assert [c.chunk_id for c in found] == [f"{PAPER}#3", f"{PAPER}#5", f"{PAPER}#2", f"{PAPER}#1"]
    assert found[0].score > found[1].score > found[2].score


def test_a_named_paper_ranked_first_is_read_like_a_scoped_one() -> None:
    distillation = NameMatch(
        name="KD", asked="KD", long_forms=(), definers=(PAPER,), introducers=(PAPER,), apart="KD"
    )
    names = Recognised(matches=(distillation,))

    found = values_stated("What temperature does KD use?", CHOSEN, names, Filters(), _passages)

    assert found[0].chunk_id == f"{PAPER}#3"


def test_a_question_for_no_setting_or_no_one_paper_keeps_the_chunks() -> None:
    scoped = Filters(paper_ids=(PAPER,))
    two = Filters(paper_ids=(PAPER, "2112.04426"))

    unasked = values_stated("What is distillation?", CHOSEN, Recognised(), scoped, _passages)
    unscoped = values_stated("What temperature do they use?", CHOSEN, Recognised(), two, _passages)

    assert unasked == CHOSEN
    assert unscoped == CHOSEN


def test_a_scoped_question_for_datasets_leads_with_the_passage_naming_those_tested_on() -> None:
    paper = "1803.07113"
    passages = [
        (f"{paper}#1", "We choose YOLOv2 because it is the best detector on benchmark datasets."),
        (f"{paper}#2", "Datasets with attributes are rare. We test our method on PASCAL VOC "
                       "and MS COCO dataset and observe gains."),
    ]  # fmt: skip
    chosen = [Candidate(f"{paper}#1", paper, 0.9)]

    found = values_stated(
        "On which datasets is the method tested?",
        chosen, Recognised(), Filters(paper_ids=(paper,)), lambda _: passages,
    )  # fmt: skip

    assert [c.chunk_id for c in found] == [f"{paper}#2", f"{paper}#1"]


def test_a_question_for_the_parts_of_a_paper_leads_with_the_passage_listing_them() -> None:
    paper = "2501.10120"
    passages = [
        (f"{paper}#1", "We introduce PaSa, a paper search agent built from LLM agents."),
        (f"{paper}#2", "PaSa consists of two LLM agents: the Crawler and the Selector."),
        (f"{paper}#3", "Each instance consists of a query and the associated paper set."),
    ]
    chosen = [Candidate(f"{paper}#1", paper, 0.9)]

    found = values_stated(
        "What agents does PaSa consist of?",
        chosen, Recognised(), Filters(paper_ids=(paper,)), lambda _: passages,
    )  # fmt: skip

    assert [c.chunk_id for c in found] == [f"{paper}#2", f"{paper}#1"]


BERT = "1810.04805"
BERT_PASSAGES = [
    (f"{BERT}#1", "BERT is designed to pre-train deep bidirectional representations."),
    (f"{BERT}#2", "We apply the feature-based approach by extracting the activations of BERT."),
    (f"{BERT}#3", "We use BERT for question answering, as described in Section 4."),
    (f"{BERT}#4", "We use a gelu activation rather than the standard relu, following OpenAI GPT."),
    (f"{BERT}#5", "BERT uses a bidirectional Transformer."),
]
BERT_NAME = NameMatch(
    name="BERT", asked="BERT", long_forms=(), definers=(BERT,), introducers=(BERT,), apart="BERT"
)


def _bert(paper: str) -> list[tuple[str, str]]:
    return BERT_PASSAGES if paper == BERT else []


def test_a_question_for_a_name_of_the_named_paper_gets_the_passage_stating_it_second() -> None:
    chosen = [Candidate(f"{BERT}#2", BERT, 0.9), Candidate(f"{BERT}#5", BERT, 0.8)]
    names = Recognised(matches=(BERT_NAME,))

    found = values_stated("What activation does BERT use?", chosen, names, Filters(), _bert)

    assert [c.chunk_id for c in found] == [f"{BERT}#2", f"{BERT}#4", f"{BERT}#5"]


def test_a_passage_sharing_only_the_papers_name_and_one_word_is_not_added() -> None:
    chosen = [Candidate(f"{BERT}#5", BERT, 0.9)]
    names = Recognised(matches=(BERT_NAME,))

    found = values_stated("What tokenizer does BERT use?", chosen, names, Filters(), _bert)

    assert found == chosen
