"""Mining named methods and acronyms from papers' text, and keeping them in the catalog."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ingest.index.catalog import Catalog
from ingest.index.name_catalog import USERS_QUERY, NameCatalog
from ingest.index.names.mining import (
    definitions_in,
    initialism,
    is_name_like,
    mine_paper,
    names_used,
    title_name,
)
from ingest.index.records import Chunk, Paper


def _pairs(text: str) -> list[tuple[str, str]]:
    return [(d.name, d.long_form) for d in definitions_in(text, "abstract")]


def test_long_form_before_the_acronym_is_found_with_its_printed_case() -> None:
    text = "We develop a novel solution, Zero Redundancy Optimizer (ZeRO), to optimize memory."

    assert _pairs(text) == [("ZeRO", "Zero Redundancy Optimizer")]


def test_hyphenated_long_forms_are_found_in_either_order() -> None:
    assert _pairs("trained with Fusion-in-Decoder (FiD) and") == [("FiD", "Fusion-in-Decoder")]
    assert _pairs("The reader, FiD (Fusion-in-Decoder), works") == [("FiD", "Fusion-in-Decoder")]


def test_the_long_form_starts_where_the_first_letter_starts_a_word() -> None:
    text = "we present the Retrieval-Enhanced Transformer (RETRO), an autoregressive model"

    assert _pairs(text) == [("RETRO", "Retrieval-Enhanced Transformer")]


def test_a_name_set_in_small_capitals_is_a_short_form_its_long_forms_words_spell() -> None:
    # RETRO's PDF sets the name in small capitals: it reads "Retro".
    text = "our Retrieval-Enhanced Transformer (Retro) obtains comparable performance"

    assert _pairs(text) == [("Retro", "Retrieval-Enhanced Transformer")]
    assert _pairs("we use Contrastive Language Image Pretraining (Clip) to") == [
        ("Clip", "Contrastive Language Image Pretraining")
    ]
    # A capitalised word whose letters merely occur in the words before it is no name.
    assert _pairs("the capital of France (Paris) is") == []
    assert _pairs("cities in the United States (Texas) grew") == []
    assert _pairs("a recurrent network (Rnn) is") == [("Rnn", "recurrent network")]


def test_parentheses_that_define_nothing_are_left_alone() -> None:
    assert _pairs("as the results show (Table 2) and") == []
    assert _pairs("trained on ImageNet (Deng et al., 2009) for") == []
    assert _pairs("a model (ours) that") == []
    assert _pairs("the CNN (see above) is") == []
    assert _pairs("()") == []


def test_a_long_form_whose_initials_spell_the_acronym_is_read_whole() -> None:
    """Matching letters from the end alone stops at "Policy Optimization", whose "p" of
    "Optimization" stands in for the first P; the paper wrote three words for three letters."""
    pairs = [
        (d.name, d.long_form)
        for text in (
            "We fine-tune with Proximal Policy Optimization (PPO) on the reward.",
            "Models adapt by test-time adaptation (TTA) on each batch.",
            "We prompt with Tree-of-Thoughts (ToT) search.",
            "We keep Low-Rank Adaptation (LoRA) as it is.",
        )
        for d in definitions_in(text, "abstract")
    ]

    assert pairs == [
        ("PPO", "Proximal Policy Optimization"),
        ("TTA", "test-time adaptation"),
        ("ToT", "Tree-of-Thoughts"),
        ("LoRA", "Low-Rank Adaptation"),
    ]


def test_quotes_around_a_long_form_are_not_the_long_forms() -> None:
    single = definitions_in(
        "The first part is the \u2018Sparse Routing Layer\u2019 (SRL), a layer.", "x"
    )
    double = definitions_in('We name it the "Sparse Routing Layer" (SRL).', "x")

    assert [(d.name, d.long_form) for d in [*single, *double]] == [
        ("SRL", "Sparse Routing Layer"),
        ("SRL", "Sparse Routing Layer"),
    ]


def test_a_long_form_must_hold_the_acronyms_letters_in_order() -> None:
    assert _pairs("a generative adversarial network (GAN)") == [
        ("GAN", "generative adversarial network")
    ]
    assert _pairs("a deep residual model (GAN)") == []


def test_a_digit_may_stand_for_the_word_it_sounds_like() -> None:
    assert _pairs("Event-to-frame (E2F) reconstruction") == [("E2F", "Event-to-frame")]
    assert _pairs("a sequence-to-sequence (Seq2Seq) model") == [("Seq2Seq", "sequence-to-sequence")]
    assert _pairs("a test framework (E2F) for") == []  # no "to" for its 2
    assert _pairs("an Efficient Text Filter (E2F) for") == []


def test_a_titles_name_comes_before_its_colon() -> None:
    assert title_name("RETRO: Improving language models") == "RETRO"
    assert title_name("FlashAttention: Fast and Memory-Efficient Exact Attention") == (
        "FlashAttention"
    )
    assert title_name("Adam: A Method for Stochastic Optimization") == "Adam"
    assert title_name("Beyond Accuracy: Behavioral Testing of NLP Models") is None
    assert title_name("Attention Is All You Need") is None
    assert title_name("") is None


def test_case_and_digits_mark_a_token_as_a_name() -> None:
    assert all(is_name_like(t) for t in ("ZeRO", "FiD", "BERT", "GPT-3", "T5", "SGDiT"))
    assert not any(is_name_like(t) for t in ("zero", "The", "Adam", "a", "X"))


def test_names_used_counts_case_marked_tokens_only() -> None:
    counts = names_used(["ZeRO beats zero baselines; ZeRO-Offload extends ZeRO.", "The BERT"])

    assert counts == {"ZeRO": 2, "ZeRO-Offload": 1, "BERT": 1}


def test_a_paper_introduces_its_title_name_and_its_acronyms_and_uses_the_rest() -> None:
    rows = mine_paper(
        "RETRO: Retrieval from trillions of tokens",
        [("abstract", "We present the Retrieval-Enhanced Transformer (RETRO). It beats GPT-3.")],
    )

    by_name = {(r[0], r[2]): (r[4], r[5]) for r in rows}
    assert by_name[("RETRO", "")] == ("2", "title")
    assert by_name[("RETRO", "Retrieval-Enhanced Transformer")] == ("2", "abstract")
    assert by_name[("GPT-3", "")] == ("0", "text")


def _paper(paper_id: str, title: str) -> Paper:
    return Paper(id=paper_id, title=title, abstract="", authors="A. Author")


def _store(catalog: Catalog, paper: Paper, text: str) -> None:
    chunk = Chunk(f"{paper.id}#a0", paper.id, "abstract", 0, text, "Abstract", 0, 0, paper)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", "d", [chunk])


@pytest.fixture
def catalog(catalog_location: str) -> Iterator[Catalog]:
    catalog = Catalog(catalog_location)
    yield catalog
    catalog.close()


def test_mining_the_same_paper_again_changes_nothing(catalog: Catalog) -> None:
    names = NameCatalog(catalog)
    paper = _paper("2007.01282", "Leveraging Passage Retrieval")
    _store(catalog, paper, "Our Fusion-in-Decoder (FiD) reads passages. FiD is simple.")

    with catalog.transaction():
        names.replace_papers([paper.id])
    first = names.of_paper(paper.id)
    with catalog.transaction():
        names.replace_papers([paper.id])

    assert names.of_paper(paper.id) == first
    assert [(r.name, r.long_form, r.defined, r.count) for r in first] == [
        ("FiD", "Fusion-in-Decoder", 1, 2)
    ]


def test_an_index_without_names_is_backfilled_once(catalog: Catalog) -> None:
    paper = _paper("1910.02054", "ZeRO: Memory Optimizations Toward Training Trillion Models")
    _store(catalog, paper, "Zero Redundancy Optimizer (ZeRO) removes redundancy.")
    names = NameCatalog(catalog)

    mined = names.backfill()
    again = names.backfill()

    assert (mined, again) == (1, 0)
    assert {(r.name, r.long_form) for r in names.of_paper(paper.id)} == {
        ("ZeRO", ""),
        ("ZeRO", "Zero Redundancy Optimizer"),
    }


def test_lookups_keep_case_apart(catalog: Catalog) -> None:
    paper = _paper("1910.02054", "ZeRO: Memory Optimizations")
    _store(catalog, paper, "Zero Redundancy Optimizer (ZeRO) has zero redundancy.")
    names = NameCatalog(catalog)
    names.backfill()

    exact = names.rows_for(["zero"])
    folded = names.rows_for([], ["zero"])
    by_long_form = names.rows_for_long_forms(["zero redundancy optimizer"])

    assert exact == []
    assert {r.name for r in folded} == {"ZeRO"}
    assert [r.name for r in by_long_form] == ["ZeRO"]


def test_a_paper_that_names_its_method_introduces_it_and_its_initials() -> None:
    text = "The model fuses in the decoder only, and we refer to it as Fusion-in-Decoder. By"

    rows = mine_paper("Leveraging Passage Retrieval with Generative Models", [("fulltext", text)])

    assert {(r[0], r[2], r[4]) for r in rows} == {
        ("Fusion-in-Decoder", "", "2"),
        ("FiD", "Fusion-in-Decoder", "2"),
    }


def test_a_later_papers_definition_does_not_introduce_the_name() -> None:
    cited = definitions_in("We build on Fusion-in-Decoder (FiD) (Izacard and Grave).", "abstract")
    own = definitions_in("We develop a novel solution, Zero Redundancy Optimizer (ZeRO).", "x")

    assert [(d.name, d.introduced) for d in cited] == [("FiD", False)]
    assert [(d.name, d.introduced) for d in own] == [("ZeRO", True)]


def test_initials_keep_their_case_and_need_two_capitals() -> None:
    assert initialism("Fusion-in-Decoder") == "FiD"
    assert initialism("Retrieval-Enhanced Transformer") == "RET"
    assert initialism("Mixture-of-experts") is None
    assert initialism("ZeRO") is None


def test_a_short_name_is_not_given_initials_of_its_own() -> None:
    """ "Fusion-in-Decoder" is what FiD stands for; "CAV-MAE" is already a short name."""
    assert initialism("Fusion-in-Decoder") == "FiD"
    assert initialism("CAV-MAE") is None
    assert initialism("GPT-4") is None
    assert initialism("AoD-IP") is None  # short names joined; its capitals spell no name


def test_a_long_form_that_prints_its_short_form_is_a_longer_name() -> None:
    text = "We propose AI Level of Detail (AI LOD), a framework for NPCs."

    assert ("AI", "AI Level of Detail") not in _pairs(text)
    assert _pairs("We study Artificial Intelligence (AI) in games.") == [
        ("AI", "Artificial Intelligence")
    ]


def test_a_word_of_the_long_form_does_not_present_it_as_the_papers_own() -> None:
    """ "Term" opens the long form; the paper compares TF-IDF, it does not term it."""
    compared = definitions_in(
        "We compare Term Frequency-Inverse Document Frequency (TF-IDF) and BERT.", "abstract"
    )
    implemented = definitions_in("We implemented Term Frequency (TF) features.", "abstract")
    named = definitions_in("In this work we term it Sparse Expert Routing (SER).", "abstract")
    name_first = definitions_in("We compare CALL (Contrastive Audio Language Learning).", "x")
    presented = definitions_in("We present CALL (Contrastive Audio Language Learning).", "x")

    assert [(d.name, d.introduced) for d in compared] == [("TF-IDF", False)]
    assert [(d.name, d.introduced) for d in implemented] == [("TF", False)]
    assert [(d.name, d.introduced) for d in named] == [("SER", True)]
    assert [(d.name, d.introduced) for d in name_first] == [("CALL", False)]
    assert [(d.name, d.introduced) for d in presented] == [("CALL", True)]


def test_a_definition_related_to_what_is_presented_is_not_the_papers_own() -> None:
    """The verb presents its object; a name defined after "that combines ... with", "for",
    "based on" is another thing the presented one uses or serves."""
    used = definitions_in(
        "We present TinyTune, a framework that couples a small encoder with Low-Rank "
        "Adaptation (LoRA) for cheap training.",
        "abstract",
    )
    served = definitions_in("We propose a benchmark for Visual Question Answering (VQA).", "x")
    own = definitions_in("We propose TinyTune and a Sparse Gradient Router (SGR).", "x")
    second = definitions_in(
        "We refer to this task as Open Set Tuning (OST) and propose Hard Negative Mixing (HNM).",
        "x",
    )
    in_a_name = definitions_in(
        "We design the Feature Enhancement Block (FEB) and the Global Fusion Unit (GFU).", "x"
    )

    assert [(d.name, d.introduced) for d in used] == [("LoRA", False)]
    assert [(d.name, d.introduced) for d in served] == [("VQA", False)]
    assert [(d.name, d.introduced) for d in own] == [("SGR", True)]
    assert [(d.name, d.introduced) for d in second] == [("OST", True), ("HNM", True)]
    assert [(d.name, d.introduced) for d in in_a_name] == [("FEB", True), ("GFU", True)]


def test_a_participle_presents_only_what_follows_it_at_once() -> None:
    listed = definitions_in(
        "The system combines named entity recognition with count vectorization and TF-IDF "
        "(Term Frequency-Inverse Document Frequency).",
        "abstract",
    )
    called = definitions_in("a new optimizer called Zero Redundancy Optimizer (ZeRO).", "x")

    assert [(d.name, d.introduced) for d in listed] == [("TF-IDF", False)]
    assert [(d.name, d.introduced) for d in called] == [("ZeRO", True)]


def test_a_names_rows_are_kept_between_questions_until_a_paper_is_written(
    catalog: Catalog, catalog_location: str
) -> None:
    first = _paper("2007.01282", "Leveraging Passage Retrieval")
    _store(catalog, first, "Our Fusion-in-Decoder (FiD) reads passages.")
    names = NameCatalog(catalog)
    names.backfill()
    writer = Catalog(catalog_location)  # an ingest beside the server
    second = _paper("2208.03299", "Atlas")
    try:
        before = names.rows_for(["FiD"], defined_only=True)
        kept = names.rows_for(["FiD"], ["fid"], defined_only=True)
        _store(writer, second, "The Fusion-in-Decoder (FiD) architecture reads passages.")
        with writer.transaction():
            NameCatalog(writer).replace_papers([second.id])
        after = names.rows_for(["FiD"], defined_only=True)
    finally:
        writer.close()

    assert [r.paper_id for r in before] == [first.id]
    assert kept == before  # one paper's row, found by name and by folded name
    assert {r.paper_id for r in after} == {first.id, second.id}


def test_a_names_users_are_counted_from_an_index_alone(catalog: Catalog) -> None:
    papers = [_paper(f"2007.0128{n}", f"Paper {n}") for n in range(3)]
    _store(catalog, papers[0], "Our Fusion-in-Decoder (FiD) reads passages.")
    _store(catalog, papers[1], "We compare with FiD and with FiD again.")
    _store(catalog, papers[2], "FiD is strong.")
    names = NameCatalog(catalog)
    names.backfill()

    users = names.users_of(["FiD", "T5"])

    assert users == {"FiD": 2}
    if catalog.db.dialect == "sqlite":  # PostgreSQL's plan depends on its statistics
        plan = catalog.db.execute("EXPLAIN QUERY PLAN " + USERS_QUERY.format(marks="?"), ["FiD"])
        assert "COVERING INDEX names_by_use" in " ".join(str(row[-1]) for row in plan)
