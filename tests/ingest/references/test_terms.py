"""The terms real PDFs define, read from their pages' text, and where later pages use them;
and the bound on a page made to hold thousands of definitions."""

from __future__ import annotations

from itertools import product
from string import ascii_uppercase

from ingest.references.terms import (
    MAX_TERMS,
    MAX_USES,
    Term,
    defined_terms,
    term_uses,
)
from tests.support.data import pdf_page_texts

RAG = "2005.11401v4.pdf"
FID = "2007.01282v2.pdf"
ZERO = "1910.02054v3.pdf"


def _term(name: str, term: str) -> Term:
    return next(found for found in defined_terms(pdf_page_texts(name)) if found.name == term)


def _used(name: str, page: int) -> list[tuple[str, str]]:
    text = pdf_page_texts(name)[page - 1]
    return [(term.name, text[start:end]) for term, start, end in term_uses(
        defined_terms(pdf_page_texts(name)), page, text
    )]  # fmt: skip


def test_an_acronym_defined_on_the_first_page_is_marked_on_later_pages() -> None:
    rag = _term(RAG, "RAG")

    used = _used(RAG, 3)

    assert (rag.meaning, rag.kind, rag.page) == ("retrieval-augmented generation", "acronym", 1)
    assert pdf_page_texts(RAG)[0][rag.start : rag.end] == "retrieval-augmented generation\r\n(RAG)"
    assert used.count(("RAG", "RAG")) >= 5
    assert ("MIPS", "MIPS") in used


def test_a_long_form_broken_over_two_lines_is_read_whole() -> None:
    texts = pdf_page_texts("2004.04906v3.pdf")

    acl = _term("2004.04906v3.pdf", "ACL")

    assert acl.meaning == "Association for Computational Linguistics"
    assert texts[acl.page - 1][acl.start : acl.end].endswith("Linguistics (ACL)")


def test_a_term_is_not_marked_before_its_definition() -> None:
    em = _term(FID, "EM")

    before = [_used(FID, page) for page in (1, 2, 3)]

    assert (em.page, em.meaning) == (4, "exact match metric")
    assert before == [[], [], []]
    assert _used(FID, 5) == [("EM", "EM")]


def test_a_name_the_paper_never_defines_is_not_marked() -> None:
    names = {term.name for term in defined_terms(pdf_page_texts(RAG))}

    used = {name for name, _ in _used(RAG, 1)}

    assert "NLP" in pdf_page_texts(RAG)[0]
    assert "NLP" not in names
    assert "NLP" not in used


def test_symbols_defined_in_a_sentence_are_terms_of_their_own_page() -> None:
    size = _term(ZERO, "\u03a8")
    multiplier = _term(ZERO, "K")

    assert (size.kind, size.meaning, size.page) == ("symbol", "model size", 3)
    assert multiplier.meaning == "memory multiplier of optimizer states"
    assert _term("2004.04906v3.pdf", "L").meaning == "maximum length of the passage"


def test_pages_that_define_nothing_have_no_terms() -> None:
    texts = ("A plain page about models.\r\nNothing here is named.", "BERT and GPT are used.")

    terms = defined_terms(texts)

    assert terms == ()
    assert term_uses(terms, 2, texts[1]) == []


def test_a_page_of_thousands_of_definitions_is_read_to_its_bounds() -> None:
    letters = list(product(ascii_uppercase, repeat=3))[:5000]
    defining = " ".join(f"Alpha {a}ne {b}wo {c}hree (A{a}{b}{c})." for a, b, c in letters)
    using = " ".join(f"A{a}{b}{c}" for a, b, c in letters) * 3

    terms = defined_terms([defining, using])
    uses = term_uses(terms, 2, using)

    assert len(terms) == MAX_TERMS
    assert len(uses) == MAX_USES
    assert (terms[0].name, terms[0].meaning) == ("AAAA", "Alpha Ane Awo Ahree")


def test_a_parenthesis_listing_names_defines_none_of_them() -> None:
    text = (
        "It was tuned on a variety of public NLP datasets (ARC, BoolQ, CoQA, DROP). We train "
        "a reward model (RM) on them."
    )

    terms = defined_terms([text])

    assert [(term.name, term.meaning) for term in terms] == [("RM", "reward model")]


def test_a_long_form_whose_letters_also_fall_inside_its_last_words_is_read_whole() -> None:
    texts = pdf_page_texts("2203.02155v1.pdf")

    ppo = _term("2203.02155v1.pdf", "PPO")

    assert ppo.meaning == "proximal policy optimization"
    assert texts[ppo.page - 1][ppo.start : ppo.end] == "proximal policy optimization (PPO)"
