"""Recognising a question's names against a catalog's mined names: numbers, and words in
lower case that the papers print as words."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from chat.rag.names.matches import NameMatch, Recognised, is_ambiguous
from chat.rag.names.printing import (
    Passages,
    apart_printings,
    name_parts,
    printings_in,
    typed_apart,
)
from chat.rag.names.recognition import NameRecogniser
from ingest.index.catalog import Catalog
from ingest.index.lexical.analysis import terms
from ingest.index.name_catalog import NameCatalog, NameRow
from ingest.index.names.mining import number_forms, singular
from ingest.index.records import Chunk, Paper

# (paper id, title, abstract)
PAPERS = (
    (
        "2604.21544",
        "Maximally Recoverable Codes Through the Lens of Matrix Completion",
        "We investigate Locally Recoverable Codes (LRCs) with Maximal Recoverability, "
        "whose generator matrices are sparse.",
    ),
    (
        "2601.00001",
        "Distilling Small Language Models",
        "We present Low-Rank Clone (LRC), a distillation method for small language models.",
    ),
    (
        "2601.00002",
        "Night Lights from Space",
        "We release the Earth Visible Activity at Light (EVAL) data set of night lights.",
    ),
    (
        "2601.00003",
        "Translation Benchmarks for Indic Languages",
        "A benchmark whose eval split covers ten languages; we report eval accuracy.",
    ),
    (
        "2601.00004",
        "Zero-shot Robustness of Retrievers",
        "Retrievers under zero-shot eval lose accuracy on long queries.",
    ),
    (
        "2007.01282",
        "Leveraging Passage Retrieval with Generative Models",
        "The reader fuses evidence in the decoder; we refer to it as Fusion-in-Decoder.",
    ),
    (
        "2601.00005",
        "Frechet Distances for Diffusion Models",
        "The Frechet Inception Distance (FID) ranks samples; a lower FID is better.",
    ),
    (
        "2601.00009",
        "Sampling Faster Diffusion Models",
        "Our sampler lowers FID on ImageNet at half the steps.",
    ),
    (
        "2205.14135",
        "FlashAttention: Fast and Memory-Efficient Exact Attention",
        "We propose FlashAttention, an IO-aware exact attention algorithm.",
    ),
    (
        "2601.00006",
        "Long Context Training on One GPU",
        "With FlashAttention kernels, training on long sequences fits in memory.",
    ),
    (
        "2112.04426",
        "Improving language models by retrieving from trillions of tokens",
        "We present our Retrieval-Enhanced Transformer (Retro), a retrieval model.",
    ),
    (
        "2601.00010",
        "Retro Games on Modern Hardware",
        "We study retro consoles and the Retro look of indie games.",
    ),
    (
        "2601.00007",
        "DataSet: A Tool for Curating Tables",
        "DataSet curates tables for analysts.",
    ),
    (
        "2601.00008",
        "Labelling Street Scenes",
        "We collect a new data set of street scenes; the data set has ten classes.",
    ),
)


def _store(catalog: Catalog, paper_id: str, title: str, text: str) -> None:
    paper = Paper(id=paper_id, title=title, abstract=text, authors="A. Author")
    chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, text, "Abstract", 0, 0, paper)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])


def _passages(papers: tuple[tuple[str, str, str], ...]) -> Passages:
    """Every passage of `papers` holding one of the query's terms, as BM25 would find."""

    def find(query: str) -> list[tuple[str, str]]:
        wanted = set(terms(query))
        return [(paper_id, text) for paper_id, _, text in papers if wanted & set(terms(text))]

    return find


@pytest.fixture
def names(tmp_path: Path) -> NameCatalog:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    for paper_id, title, text in PAPERS:
        _store(catalog, paper_id, title, text)
    names = NameCatalog(catalog)
    names.backfill()
    return names


def _recogniser(
    names: NameCatalog, papers: tuple[tuple[str, str, str], ...] = PAPERS
) -> NameRecogniser:
    return NameRecogniser(names, passages=_passages(papers))


def test_a_name_is_the_same_name_in_either_number() -> None:
    assert singular("LRCs") == "LRC"
    assert singular("NeRFs") == "NeRF"
    assert singular("LRC") == "LRC"
    assert singular("iOS") == "iOS"
    assert singular("Ts") == "Ts"
    assert number_forms("LRC") == ["LRC", "LRCs"]
    assert number_forms("LLMs") == ["LLMs", "LLM"]
    assert number_forms("Adam") == ["Adam"]


def test_a_name_set_in_small_capitals_is_found_as_people_type_it(names: NameCatalog) -> None:
    """The PDF prints "Retro" in small capitals; people type RETRO, or Retro in a sentence."""
    capitals = _recogniser(names).recognise("Who wrote the RETRO paper?")
    written = _recogniser(names).recognise("How does the Retro model retrieve?")
    word = _recogniser(names).recognise("Which retro games run on modern hardware?")

    assert [(m.name, m.introducers) for m in capitals.matches] == [("Retro", ("2112.04426",))]
    assert [m.name for m in written.matches] == ["Retro"]
    assert word.matches == ()


def test_a_name_defined_as_asked_is_that_name_alone(names: NameCatalog) -> None:
    """One paper defines LRC (Low-Rank Clone), another LRCs (Locally Recoverable Codes):
    each number is its own name."""
    singular_ = _recogniser(names).recognise("LRC sparse generator matrices, small subfield")
    plural = _recogniser(names).recognise("How are LRCs built?")

    assert [(m.name, m.definers) for m in singular_.matches] == [("LRC", ("2601.00001",))]
    assert [(m.name, m.definers) for m in plural.matches] == [("LRCs", ("2604.21544",))]


def test_a_name_defined_only_in_the_other_number_is_found(names: NameCatalog) -> None:
    recognised = _recogniser(names).recognise("What do the EVALs hold?")

    assert [(m.name, m.asked) for m in recognised.matches] == [("EVAL", "EVALs")]
    assert recognised.matches[0].definers == ("2601.00002",)


def test_a_word_the_papers_print_in_lower_case_is_not_taken_for_a_name(
    names: NameCatalog,
) -> None:
    """Two papers print "eval" as a word; one calls its data set EVAL."""
    recognise = _recogniser(names).recognise

    lower = recognise("India-focused VQA, OCR, translation eval")
    upper = recognise("What is in the EVAL data set?")

    assert "EVAL" not in [m.name for m in lower.matches]
    assert [m.name for m in upper.matches] == ["EVAL"]


def test_a_word_in_lower_case_is_a_name_where_the_papers_print_it_only_as_one(
    names: NameCatalog,
) -> None:
    """Without the papers that print "eval" as a word, "eval" is EVAL."""
    only_names = tuple(p for p in PAPERS if "eval " not in p[2])

    recognised = _recogniser(names, only_names).recognise("what is eval")

    assert [m.name for m in recognised.matches] == ["EVAL"]


def test_a_word_in_lower_case_reads_as_the_name_the_papers_print_most(
    names: NameCatalog,
) -> None:
    """Two papers print FID, the metric; one defines FiD: "fid" is FID. Where the papers'
    passages print neither, each has its one definer, and "fid" may be either."""
    unprinted = tuple(p for p in PAPERS if "FID" not in p[2])

    printed = _recogniser(names).recognise("what does fid stand for")
    tied = _recogniser(names, unprinted).recognise("what does fid stand for")
    cased = _recogniser(names).recognise("What does FiD stand for?")

    assert [m.name for m in printed.matches] == ["FID"]
    assert {m.name for m in tied.matches} == {"FiD", "FID"}
    assert [m.name for m in cased.matches] == ["FiD"]


def test_without_printings_a_lower_case_word_matches_on_its_english_rarity(
    names: NameCatalog,
) -> None:
    recognised = NameRecogniser(names).recognise("translation eval")

    assert [m.name for m in recognised.matches] == ["EVAL"]


def test_printings_count_papers_per_printed_form_and_leave_longer_names_alone() -> None:
    passages = [
        ("a", "The eval split and the EVAL set."),
        ("b", "MT-Eval and eval again; Evals too."),
        ("c", "Nothing here."),
    ]

    printed = printings_in("eval", passages)

    assert printed == {
        "eval": frozenset({"a", "b"}),
        "EVAL": frozenset({"a"}),
        "Evals": frozenset({"b"}),
    }


def test_words_typed_apart_are_the_name_the_papers_print_joined(names: NameCatalog) -> None:
    recognise = _recogniser(names).recognise

    spaced = recognise("how does flash attention work")
    hyphenated = recognise("Flash-Attention memory use")

    [match] = spaced.matches
    assert (match.name, match.apart) == ("FlashAttention", "flash attention")
    assert "2205.14135" in match.introducers
    assert "FlashAttention" in spaced.search_forms()
    assert spaced.long_forms_by_term()["flash"] == ("FlashAttention",)
    assert [m.name for m in hyphenated.matches] == ["FlashAttention"]
    assert spaced.expanded("how does flash attention work").endswith("(FlashAttention)")


def test_words_the_papers_print_apart_stay_words(names: NameCatalog) -> None:
    """One paper calls itself DataSet; two print "data set" as words."""
    recognised = _recogniser(names).recognise("Which data set has street scenes?")

    assert recognised.matches == ()


def test_without_passages_words_typed_apart_are_not_read_as_a_name(names: NameCatalog) -> None:
    assert NameRecogniser(names).recognise("how does flash attention work").matches == ()


def test_a_joined_name_is_split_into_the_parts_it_is_printed_with() -> None:
    assert name_parts("FlashAttention") == ("flash", "attention")
    assert name_parts("GraphRAG") == ("graph", "rag")
    assert name_parts("ResNet50") == ("res", "net", "50")
    assert name_parts("BERT") == ()
    assert name_parts("Fusion-in-Decoder") == ()
    runs = [r.written for r in typed_apart("is flash attention, or flash-attn fast")]

    assert {"flash attention", "flash-attn", "flash-attn fast"} <= set(runs)
    assert not [r for r in runs if r.startswith(("is ", "or "))]  # stop words are no names
    assert [r.written for r in typed_apart("calories in a banana")] == []
    assert not [r for r in runs if "," in r or len(r.split()) > 3]
    assert typed_apart("flash-attn")[0].joined == "flashattn"


def _rows(name: str, *long_forms: str) -> list[NameRow]:
    return [NameRow(f"p{i}", name, form, 1, "abstract", 1) for i, form in enumerate(long_forms)]


def test_a_name_is_ambiguous_when_its_definers_mean_different_things_by_it() -> None:
    lrc = _rows("LRC", "Low-Rank Clone", "Local Response Cleaning", "Lightweight Rate Control")
    dpr = _rows(
        "DPR", "Dense Passage Retrieval", "Dense Passage Retriever", "dense passage retrieval"
    )
    fid = _rows(
        "FiD", "Fusion-in-Decoder", "Fusion-in-Decoder", "Fusion in Decoder", "Feature in Domain"
    )

    assert is_ambiguous(lrc)
    assert not is_ambiguous(dpr)
    assert not is_ambiguous(fid)  # three of four mean Fusion-in-Decoder
    assert not is_ambiguous(lrc[:1])


def test_an_ambiguous_name_neither_expands_nor_boosts() -> None:
    """Papers define LRC as different things: the question's other words decide."""
    rows = _rows("LRC", "Low-Rank Clone", "Local Response Cleaning")
    ambiguous = NameMatch("LRC", "LRC", ("Low-Rank Clone",), ("p0", "p1"), ambiguous=True)
    plain = replace(ambiguous, ambiguous=False)
    idf = {"lrc": 8.0, "generat": 3.0, "matric": 3.0}

    dropped = Recognised((ambiguous,), frozenset({"p0", "p1"}), ((ambiguous, ("p0", "p1")),))
    kept = Recognised((plain,), frozenset({"p0", "p1"}), ((plain, ("p0", "p1")),))

    assert is_ambiguous(rows)
    assert dropped.steering(idf, 0.2, 20).matches == ()
    assert dropped.steering(idf, 0.2, 20).boosted == frozenset()
    assert kept.steering(idf, 0.2, 20).matches == (plain,)


def test_a_question_describing_a_namesake_reads_that_one_first_and_else_the_oldest(
    tmp_path: Path,
) -> None:
    namesakes = (
        ("2505.00001", "2025-05-20", "REACT: Representation Extraction for Knowledge Editing",
         "We edit the knowledge of language models without overfitting."),
        ("2508.00002", "2025-08-01", "REACT: A Real-Time Edge-AI V2X Framework",
         "A framework for accident avoidance in autonomous driving with V2X messages."),
    )  # fmt: skip
    names = _dated_names(tmp_path, namesakes)
    recogniser = NameRecogniser(names)

    def first(question: str) -> str:
        (match,) = recogniser.recognise(question).matches
        return match.introducers[0]

    assert first("Who wrote REACT, the V2X framework for accident avoidance?") == "2508.00002"
    assert first("Who wrote REACT, the knowledge editing method?") == "2505.00001"
    assert first("What is REACT?") == "2505.00001"  # nothing else said: the oldest
    assert first("What does REACT build on?") == "2505.00001"  # one word describes nothing


def test_a_name_typed_in_capitals_reads_the_small_capitals_printing_too(tmp_path: Path) -> None:
    papers = (
        ("2112.04426", "2021-12-08", "Improving language models by retrieving from trillions",
         "We present our Retrieval-Enhanced Transformer (Retro), a retrieval model."),
        ("2505.14319", "2025-05-20", "RETRO: REthinking Tactile Representation Learning",
         "We learn tactile representations with material priors."),
    )  # fmt: skip
    names = _dated_names(tmp_path, papers)

    (match,) = NameRecogniser(names).recognise("Who wrote RETRO?").matches

    assert (match.name, match.introducers) == ("RETRO", ("2112.04426", "2505.14319"))


def _dated_names(tmp_path: Path, papers: tuple[tuple[str, str, str, str], ...]) -> NameCatalog:
    """The names mined from (id, first submitted, title, abstract) records."""
    catalog = Catalog(tmp_path / "catalog.sqlite")
    for paper_id, published, title, text in papers:
        paper = Paper(id=paper_id, title=title, abstract=text, authors="A. Author",
                      published=published)  # fmt: skip
        chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, text, "Abstract", 0, 0, paper)
        with catalog.transaction():
            catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])
    names = NameCatalog(catalog)
    names.backfill()
    return names


def test_a_long_form_is_kept_as_the_question_writes_it(names: NameCatalog) -> None:
    """ "low-rank clone" typed in lower case is words, whatever case the paper prints its
    long form in: the answer does not read the question as naming the paper's method."""
    typed = _recogniser(names).recognise("Does low rank clone distil small models?")
    cased = _recogniser(names).recognise("Does Low-Rank Clone distil small models?")

    assert [(m.name, m.written) for m in typed.matches] == [("LRC", "low rank clone")]
    assert [(m.name, m.written) for m in cased.matches] == [("LRC", "Low-Rank Clone")]


def test_words_typed_apart_are_found_as_whole_words_in_any_case() -> None:
    (run, *_) = typed_apart("flash attention")
    passages = [
        ("at-start", "Flash Attention speeds up training."),
        ("hyphened", "we use flash-attentions in every layer"),
        ("new-line", "kernels of FLASH\nATTENTION"),
        ("inside", "splash attention and flash attentional layers"),
        ("after-hyphen", "non-flash attention kernels"),
        ("joined", "FlashAttention, and FlashAttentions"),
        ("joined-inside", "MyFlashAttention is not FlashAttention-2"),
    ]

    apart, joined = apart_printings(run, "FlashAttention", passages)

    assert apart == {"at-start", "hyphened", "new-line"}
    assert joined == {"joined"}


def test_a_models_variant_is_read_as_the_name_it_is_of(names: NameCatalog) -> None:
    """RETRO's paper names its models by size; "RETRO-7B" and "Retro-large" are RETRO."""
    sized = _recogniser(names).recognise("How many layers does RETRO-7B have?")
    large = _recogniser(names).recognise("Is Retro-large trained longer?")
    numbered = _recogniser(names).recognise("Is RETRO-2 a sequel?")

    assert [m.name for m in sized.matches] == ["Retro"]
    assert [m.name for m in large.matches] == ["Retro"]
    assert numbered.matches == ()  # "-2" names another model, not a size of this one
