"""A question about a named method gets the passages of its paper that say what it is: the
one that presents it for a definition question, its abstract's figures for a number."""

from __future__ import annotations

from dataclasses import replace

from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.leading import (
    asked_name,
    count_beside,
    definition_first,
    definition_in_scope,
    summary_beside,
    values_beside_notation,
)
from ingest.index.filters import Filters

PAPER = "2205.14135"
FLASH = NameMatch(
    name="FlashAttention",
    asked="flash attention",
    long_forms=(),
    definers=(PAPER,),
    introducers=(PAPER,),
    apart="flash attention",
)
NAMES = Recognised(matches=(FLASH,), boosted=frozenset({PAPER}))
PASSAGES = {
    PAPER: [
        (f"{PAPER}#0", "Transformers are slow and memory-hungry on long sequences."),
        (f"{PAPER}#1", "We propose FlashAttention, an IO-aware exact attention algorithm."),
        (f"{PAPER}#2", "FlashAttention trains GPT-2 three times faster."),
    ]
}
RANKED = [
    Candidate(f"{PAPER}#9", PAPER, 2.0),
    Candidate("2601.00001#0", "2601.00001", 1.0),
    Candidate(f"{PAPER}#1", PAPER, 0.5),
]


def _opening(paper_id: str) -> list[tuple[str, str]]:
    return PASSAGES.get(paper_id, [])


def test_a_definition_question_leads_with_the_passage_that_presents_the_name() -> None:
    ranked = definition_first("what is flash attention", RANKED, NAMES, Filters(), _opening)

    assert [c.chunk_id for c in ranked] == [f"{PAPER}#1", f"{PAPER}#9", "2601.00001#0"]
    assert ranked[0].score > ranked[1].score


def test_a_defining_passage_fusion_did_not_find_is_added_first() -> None:
    unfound = RANKED[:2]

    ranked = definition_first("What is FlashAttention?", unfound, NAMES, Filters(), _opening)

    assert [c.chunk_id for c in ranked] == [f"{PAPER}#1", f"{PAPER}#9", "2601.00001#0"]


def test_the_passage_that_spells_the_name_out_leads_before_one_that_says_what_it_is() -> None:
    corpus = "f83d85b272d5efd7"
    s2orc = NameMatch("S2ORC", "S2ORC", (), (corpus,), introducers=(corpus,))
    passages = [
        (f"{corpus}#0", "We introduce S2ORC, a large corpus of 81.1M academic papers."),
        (f"{corpus}#1", "We introduce S2ORC, the Semantic Scholar Open Research Corpus, a corpus."),
    ]

    ranked = definition_first(
        "What does S2ORC stand for?",
        [Candidate(f"{corpus}#0", corpus, 1.0)],
        Recognised(matches=(s2orc,)),
        Filters(),
        lambda _: passages,
    )

    assert ranked[0].chunk_id == f"{corpus}#1"


def test_other_questions_and_other_papers_keep_their_order() -> None:
    how = definition_first("How fast is flash attention?", RANKED, NAMES, Filters(), _opening)
    elsewhere = definition_first(
        "what is flash attention", RANKED, NAMES, Filters(paper_ids=("2601.00001",)), _opening
    )
    undefined = definition_first("what is flash attention", RANKED, NAMES, Filters(), lambda _: [])

    assert how == RANKED
    assert elsewhere == RANKED
    assert undefined == RANKED


def test_the_asked_name_is_the_one_the_question_spells() -> None:
    assert asked_name("what is flash attention", NAMES) is FLASH
    assert asked_name("What is FlashAttention?", NAMES) is FLASH
    assert asked_name("what is paged attention", NAMES) is None
    assert asked_name("flash attention speed", NAMES) is None


def test_a_question_for_a_number_gets_the_abstract_that_gives_the_papers_figures() -> None:
    chosen = [Candidate(f"{PAPER}#9", PAPER, 2.0), Candidate("2601.00001#0", "2601.00001", 1.0)]

    joined = summary_beside("How much faster does FlashAttention train GPT-2?", chosen,
                            NAMES, Filters(), _opening)  # fmt: skip

    # The first opening passage that prints a number and the name: one passage more, second.
    assert [c.chunk_id for c in joined] == [f"{PAPER}#9", f"{PAPER}#2", "2601.00001#0"]
    assert joined[0].score > joined[1].score


def test_no_summary_joins_other_questions_papers_or_chunks_that_hold_it() -> None:
    chosen = [Candidate(f"{PAPER}#9", PAPER, 2.0)]
    held = [*chosen, Candidate(f"{PAPER}#2", PAPER, 1.0)]
    question = "How much faster does FlashAttention train GPT-2?"

    definition = summary_beside("What is FlashAttention?", chosen, NAMES, Filters(), _opening)
    elsewhere = summary_beside(
        question, chosen, NAMES, Filters(paper_ids=("2601.00001",)), _opening
    )
    unnamed = summary_beside(question, chosen, Recognised(), Filters(), _opening)
    already = summary_beside(question, held, NAMES, Filters(), _opening)
    no_figures = summary_beside(question, chosen, NAMES, Filters(), lambda _: PASSAGES[PAPER][:2])

    assert definition == elsewhere == unnamed == no_figures == chosen
    assert already == held


def test_a_name_asked_by_its_long_form_is_the_asked_name_and_one_definer_is_its_paper() -> None:
    star = NameMatch("STaR", "STaR", ("Self-Taught Reasoner",), ("2203.14465",),
                     introducers=("2203.14465",), written="Self-Taught Reasoner")  # fmt: skip
    dpr = NameMatch("DPR", "DPR", ("dense passage retriever",), ("2004.04906",),
                    written="dense passage retriever")  # fmt: skip
    shared = replace(dpr, definers=("2004.04906", "2507.23404"))

    assert asked_name("What is the Self-Taught Reasoner?", Recognised((star,))) is star
    assert asked_name("What is the Dense Passage Retriever?", Recognised((dpr,))) is dpr
    # Defined by two papers and introduced by none: no one paper's own name.
    assert asked_name("What is the Dense Passage Retriever?", Recognised((shared,))) is None


ZERO = "1910.02054"
ZERO_PASSAGES = [
    (f"{ZERO}#0", "We develop ZeRO-DP, which achieves the efficiency of DP."),
    (f"{ZERO}#7", "Basic data parallelism (DP) does not reduce memory per device."),
    (f"{ZERO}#8", "Model parallelism (MP) splits the model vertically."),
]
ZERO_RANKED = [Candidate(f"{ZERO}#0", ZERO, 1.0), Candidate(f"{ZERO}#8", ZERO, 0.5)]


def _zero_passages(paper_id: str) -> list[tuple[str, str]]:
    return ZERO_PASSAGES if paper_id == ZERO else []


def test_a_definition_question_scoped_to_one_paper_leads_with_where_it_spells_the_term_out() -> (
    None
):
    scoped = Filters(paper_ids=(ZERO,))

    ranked = definition_in_scope(
        "In the ZeRO paper, what does DP stand for?", ZERO_RANKED, scoped, _zero_passages
    )

    assert [c.chunk_id for c in ranked] == [f"{ZERO}#7", f"{ZERO}#0", f"{ZERO}#8"]


def test_an_unscoped_or_other_question_keeps_its_order() -> None:
    scoped = Filters(paper_ids=(ZERO,))
    for question, filters in [
        ("What does DP stand for?", Filters()),
        ("How much memory does DP save?", scoped),
        ("What does PP stand for?", scoped),
    ]:
        ranked = definition_in_scope(question, ZERO_RANKED, filters, _zero_passages)

        assert ranked == ZERO_RANKED


ADAM = "1412.6980"
BOX = f"{ADAM}#table-64@x"
ADAM_PASSAGES = [
    (f"{ADAM}#fulltext-2@x", "Adam combines AdaGrad and RMSProp."),
    (f"{ADAM}#fulltext-4@x", "Good default settings are \u03b1 = 0.001, β1 = 0.9, β2 = 0.999."),
    (f"{ADAM}#fulltext-42@x", "AdaMax's defaults are \u03b1 = 0.002, β1 = 0.9 and β2 = 0.999."),
]
BOX_TEXT = "Require: β1, β2 ∈ [0, 1): Exponential decay rates for the moment estimates"


def test_the_passage_giving_the_boxed_symbols_values_joins_second() -> None:
    chosen = [Candidate(f"{ADAM}#fulltext-9@x", ADAM, 2.0), Candidate(BOX, ADAM, 1.0)]

    joined = values_beside_notation(
        "What default decay rates are recommended for the moment estimates?",
        chosen,
        lambda ids: {i: BOX_TEXT for i in ids if i == BOX},
        lambda paper: ADAM_PASSAGES if paper == ADAM else [],
    )

    assert [c.chunk_id for c in joined] == [chosen[0].chunk_id, f"{ADAM}#fulltext-4@x", BOX]
    assert joined[1].score < joined[0].score


def test_no_passage_joins_for_a_question_not_worded_as_a_boxed_symbol() -> None:
    chosen = [Candidate(f"{ADAM}#fulltext-9@x", ADAM, 2.0), Candidate(BOX, ADAM, 1.0)]

    joined = values_beside_notation(
        "How fast does Adam converge?",
        chosen,
        lambda ids: {i: BOX_TEXT for i in ids if i == BOX},
        lambda paper: ADAM_PASSAGES,
    )

    assert joined == chosen


def test_a_number_question_gets_the_opening_that_introduces_its_plain_capitalised_name() -> None:
    """ "the Transformer's" matches no name of the catalog; the paper ranked first introduces
    it in its abstract, which joins second."""
    paper = "1706.03762"
    opening = [
        (f"{paper}#0", "We propose a new simple network architecture, the Transformer, "
                       "based solely on attention mechanisms."),
    ]  # fmt: skip
    chosen = [Candidate(f"{paper}#9", paper, 2.0), Candidate("2010.11929#3", "2010.11929", 1.0)]
    question = "What is the inner dimensionality of the Transformer's feed-forward layers?"

    joined = summary_beside(question, chosen, Recognised(), Filters(), lambda _: opening)
    other = summary_beside(
        "What is the inner dimensionality of the Reformer's feed-forward layers?",
        chosen,
        Recognised(),
        Filters(),
        lambda _: opening,
    )

    assert [c.chunk_id for c in joined] == [f"{paper}#9", f"{paper}#0", "2010.11929#3"]
    assert other == chosen


RETRO = "2112.04426"
RETRO_MATCH = NameMatch(
    "RETRO", "RETRO", (), (RETRO, "2505.14319"), introducers=(RETRO, "2505.14319")
)
RETRO_PASSAGES = [
    (f"{RETRO}#0", "We retrieve from a database with trillions of tokens."),
    (f"{RETRO}#9", "We tokenize the dataset with a vocabulary of 128,000 tokens. The dataset "
                   "consists of text documents totalling over 5 trillion tokens."),
    (f"{RETRO}#40", "The training dataset of the baseline holds 300 billion tokens of text."),
]  # fmt: skip


def test_a_how_many_question_gets_the_passage_that_counts_it_in_the_named_paper() -> None:
    """RETRO has a namesake; the search ranks the 2021 paper first, whose passage giving a
    number of tokens with two more of the question's words joins second."""
    chosen = [Candidate(f"{RETRO}#3", RETRO, 2.0), Candidate("2505.14319#0", "2505.14319", 1.0)]
    names = Recognised(matches=(RETRO_MATCH,))

    joined = count_beside(
        "How many tokens does the text of RETRO's training dataset total?",
        chosen, names, Filters(), lambda paper: RETRO_PASSAGES if paper == RETRO else [],
    )  # fmt: skip
    value = count_beside(
        "What is the vocabulary of RETRO's tokenizer?",
        chosen, names, Filters(), lambda paper: RETRO_PASSAGES,
    )  # fmt: skip

    assert [c.chunk_id for c in joined] == [f"{RETRO}#3", f"{RETRO}#9", "2505.14319#0"]
    assert value == chosen


BERT = "1810.04805"
BERT_PASSAGES = [
    (f"{BERT}#3", "BERT is a multi-layer bidirectional Transformer encoder."),
    (f"{BERT}#17", "We denote the number of layers (i.e., Transformer blocks) as L, the hidden "
                   "size as H, and the number of self-attention heads as A."),
    (f"{BERT}#18", "We report results on two model sizes: BERT-base (L=12, H=768, A=12) and "
                   "BERT-large (L=24, H=1024, A=16)."),
]  # fmt: skip


def test_a_count_the_paper_gives_by_its_letter_brings_the_setting_and_the_definition() -> None:
    chosen = [Candidate(f"{BERT}#40", BERT, 2.0), Candidate("1901.11373#15", "1901.11373", 1.0)]
    names = Recognised(matches=(NameMatch("BERT", "BERT", (), (BERT,), introducers=(BERT,)),))

    joined = count_beside(
        "How many layers does BERT-large have?",
        chosen, names, Filters(), lambda paper: BERT_PASSAGES if paper == BERT else [],
    )  # fmt: skip
    tokens = count_beside(
        "How many tokens does BERT-large read?",
        chosen, names, Filters(), lambda paper: BERT_PASSAGES,
    )  # fmt: skip

    assert [c.chunk_id for c in joined] == [
        f"{BERT}#40", f"{BERT}#18", f"{BERT}#17", "1901.11373#15"
    ]  # fmt: skip
    assert tokens == chosen
