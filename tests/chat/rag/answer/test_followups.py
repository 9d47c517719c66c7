"""A follow-up that leans on the previous answer is asked about the papers it cited."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from chat.rag.answer.followups import MAX_CARRIED, carried_scope, cited_papers, refers_back
from chat.rag.retrieval.vocabulary import asked_names
from ingest.index.filters import Filters

RETRO_ANSWER = (
    "RETRO is a retrieval-enhanced autoregressive language model [arXiv:2112.04426]. "
    "It conditions on document chunks retrieved from a large corpus [arXiv:2112.04426]. "
    "Other work retrieves passages for question answering [arXiv:2007.01282]."
)
HISTORY = (("user", "What is RETRO?"), ("assistant", RETRO_ANSWER))


TITLES = {
    "2112.04426": "Improving language models by retrieving from trillions of tokens",
    "2007.01282": "Leveraging Passage Retrieval with Generative Models",
    "1810.04805": "BERT",
    "2010.11929": "An Image is Worth 16x16 Words",
    "2604.25039": "Dual-Track CoT: Budget-Aware Stepwise Guidance for Small LMs",
    "2205.01068": "OPT: Open Pre-trained Transformer Language Models",
    "2204.02311": "PaLM: Scaling Language Modeling with Pathways",
    "2005.11401": "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
}


def _known(paper_id: str) -> str | None:
    return TITLES.get(paper_id)


@pytest.mark.parametrize(
    "question",
    [
        "and how big is its retrieval database?",
        "how many layers does its large model have?",
        "Who wrote it?",
        "what error does their ensemble get on the ImageNet test set?",
        "Which datasets does the paper use?",
        "What about the decoder?",
        "How was this model trained?",
        "how many GPUs was the largest one trained on?",
    ],
)
def test_a_question_that_points_back_leans_on_the_previous_one(question: str) -> None:
    assert refers_back(question)


@pytest.mark.parametrize(
    "question",
    [
        "How does Fusion-in-Decoder combine passages?",
        "What shows that retrieval helps language models?",  # "that" as a conjunction
        "Which optimizer do transformers use?",
        "What is BERT?",
    ],
)
def test_a_question_that_stands_alone_does_not(question: str) -> None:
    assert not refers_back(question)


def test_an_answers_subject_is_the_paper_it_cites_most_and_first() -> None:
    assert cited_papers(RETRO_ANSWER) == ["2112.04426"]
    assert cited_papers("A [arXiv:1810.04805v2] and B [doc:f83d85b272d5efd7].") == [
        "1810.04805",
        "f83d85b272d5efd7",
    ]
    assert cited_papers("No citation here.") == []
    # The answer's lead stays its subject, however often the others are cited after it.
    lead = "A [arXiv:2005.11401]. B [arXiv:2503.14649]. C [arXiv:2503.14649]. D [arXiv:2503.1]."
    assert cited_papers(lead) == ["2005.11401", "2503.14649"]


def test_a_follow_up_is_scoped_to_the_previous_answers_papers() -> None:
    carried = carried_scope("and how big is its database?", HISTORY, Filters(), _known)

    assert carried is not None
    assert carried.paper_ids == ("2112.04426",)
    assert carried.data() == {
        "paper_ids": ["2112.04426"],
        "titles": [TITLES["2112.04426"]],
        "carried": True,
    }


def test_it_is_the_first_paper_cited_and_they_are_at_most_a_few() -> None:
    papers = ("2112.04426", "2007.01282", "1810.04805")
    history = (("assistant", " ".join(f"x [arXiv:{p}]." for p in papers)),)

    it = carried_scope("and who wrote it?", history, Filters(), _known)
    they = carried_scope("and who wrote them?", history, Filters(), _known)

    assert it is not None
    assert they is not None
    assert it.paper_ids == papers[:1]
    assert they.paper_ids == papers[:MAX_CARRIED]


@pytest.mark.parametrize(
    ("question", "filters", "history"),
    [
        # It names its own subject, by an id.
        ("What does 1810.04805 say about it?", Filters(), HISTORY),
        # The caller scoped it already.
        ("and its database?", Filters(paper_ids=("1810.04805",)), HISTORY),
        ("and its database?", Filters(author="Sebastian Borgeaud"), HISTORY),
        # Nothing points back.
        ("How big is a retrieval database usually?", Filters(), HISTORY),
        # No earlier answer, or one that cited nothing (a refusal).
        ("and its database?", Filters(), (("user", "What is RETRO?"),)),
        ("and its database?", Filters(), (("assistant", "I could not find anything."),)),
        # A citation of a paper the index does not hold (a client's made-up history).
        ("and its database?", Filters(), (("assistant", "It is [arXiv:9999.99999]."),)),
    ],
)
def test_nothing_is_carried_when_the_question_needs_no_scope_or_none_is_known(
    question: str, filters: Filters, history: tuple[tuple[str, str], ...]
) -> None:
    assert carried_scope(question, history, filters, _known) is None


def test_they_after_a_question_about_one_paper_are_its_authors_and_its_paper_alone() -> None:
    answer = "STaR bootstraps rationales [arXiv:2112.04426]. HS-STaR samples [arXiv:2007.01282]."
    one = (("user", "What is the Self-Taught Reasoner?"), ("assistant", answer))
    two = (("user", "What are STaR and HS-STaR?"), ("assistant", answer))

    authors = carried_scope("how many layers does the model they fine-tune have?", one,
                            Filters(), _known)  # fmt: skip
    papers = carried_scope("and who wrote them?", two, Filters(), _known)

    assert authors is not None
    assert papers is not None
    assert authors.paper_ids == ("2112.04426",)
    assert papers.paper_ids == ("2112.04426", "2007.01282")


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How many parameters does ViT-Huge have?", ["ViT-Huge"]),
        ("What is Adam?", ["Adam"]),
        ("RETRO's database?", ["RETRO"]),
        ("What is the Zero Redundancy Optimizer?", ["Zero Redundancy Optimizer"]),
        ("Which has more parameters, OPT-175B or T5?", ["OPT-175B", "T5"]),
        ("What is deep residual learning?", []),
    ],
)
def test_the_names_a_question_asks_about_are_its_words_written_as_names(
    question: str, names: list[str]
) -> None:
    assert asked_names(question) == names


# An answer that opened with a passage about something else and cited the paper of the
# name asked about last.
VIT_ANSWER = (
    "Smaller models struggle under tight budgets [arXiv:2604.25039]. "
    "Deployments cannot afford huge models [arXiv:2604.25039]. "
    "RePa-ViT-Huge enjoys a 68.7% speed-up [arXiv:2505.21847]. "
    "Table 1: ViT-Huge · Params · 632M [arXiv:2010.11929]"
)


def test_the_paper_whose_sentences_print_the_name_asked_about_is_the_answers_subject() -> None:
    history = (("user", "How many parameters does ViT-Huge have?"), ("assistant", VIT_ANSWER))

    carried = carried_scope("what is the MLP size of that model?", history, Filters(), _known)

    assert cited_papers(VIT_ANSWER) == ["2604.25039"]
    assert carried is not None
    assert carried.paper_ids == ("2010.11929",)


def test_the_first_paper_cited_stays_the_subject_when_it_prints_the_name_too() -> None:
    answer = f"RETRO retrieves chunks [arXiv:2112.04426]. {RETRO_ANSWER}"

    assert cited_papers(answer, "What is RETRO?") == ["2112.04426"]
    assert cited_papers(RETRO_ANSWER, "What is Adam?") == ["2112.04426"]


def test_a_follow_up_that_names_another_paper_is_not_carried_over() -> None:
    asked: list[tuple[str, list[str]]] = []

    def names_another(question: str, papers: Sequence[str]) -> bool:
        asked.append((question, list(papers)))
        return "RAG" in question

    rag = carried_scope("and what about RAG, which retriever does it use?", HISTORY, Filters(),
                        _known, names_another)  # fmt: skip
    database = carried_scope("and how big is its database?", HISTORY, Filters(), _known,
                             names_another)  # fmt: skip

    assert rag is None
    assert database is not None
    assert database.paper_ids == ("2112.04426",)
    assert asked[0] == ("and what about RAG, which retriever does it use?", ["2112.04426"])


SIZES = (
    "OPT-175B: We present OPT, ranging from 125M to 175B parameters [arXiv:2205.01068]. "
    "OPT-175B was trained with AdamW [arXiv:2205.01068]. "
    "PaLM: we train a 540 billion parameter model [arXiv:2204.02311]."
)


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        ("how many chips was the second one trained on?", "2204.02311"),
        ("and who wrote the latter model?", "2204.02311"),
        ("how many GPUs was the first one trained on?", "2205.01068"),
    ],
)
def test_the_second_one_is_the_paper_of_the_second_name_asked(question: str, paper: str) -> None:
    history = (("user", "Which has more parameters, OPT-175B or PaLM?"), ("assistant", SIZES))

    carried = carried_scope(question, history, Filters(), _known)

    assert carried is not None
    assert carried.paper_ids == (paper,)


def test_the_second_one_is_carried_nowhere_when_the_answer_cited_no_paper_of_its_own() -> None:
    answer = "Unlike REALM, RAG needs no salient span masking [arXiv:2005.11401]."
    history = (("user", "What are RAG and REALM?"), ("assistant", answer))
    agents = (("user", "What agents does PaSa consist of?"), ("assistant", RETRO_ANSWER))

    realm = carried_scope("who wrote the second one?", history, Filters(), _known)
    rag = carried_scope("who wrote the first one?", history, Filters(), _known)
    within = carried_scope("what does the second one do?", agents, Filters(), _known)

    assert realm is None
    assert rag is None  # its sentence prints REALM too: which one it is about is unclear
    assert within is not None
    assert within.paper_ids == ("2112.04426",)
