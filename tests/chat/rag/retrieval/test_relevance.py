"""When retrieval counts as having found something to answer from."""

from __future__ import annotations

from dataclasses import replace

from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.relevance import (
    NOT_CLOSE,
    NOT_SCHOLARLY,
    NOTHING_FOUND,
    Judgement,
    RelevancePolicy,
)
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.sources import Source


def _retrieved(
    dense: float, lexical: float, terms: int, weight: float, scholarly: float = 1.0
) -> Retrieved:
    """`scholarly` is the share of the question's terms that are the papers' words."""
    # The dense side's best paper ("a") is not the lexical side's ("b"): no agreement.
    ranked = (
        Candidate("a#0", "a", 1.0, dense=dense, lexical=0.0, dense_rank=1),
        Candidate("b#0", "b", 0.9, dense=0.1, lexical=lexical, lexical_rank=1),
        Candidate("c#0", "c", 0.8, dense=0.1, lexical=lexical * 0.95, lexical_rank=2),
    )
    source = Source(
        n=1,
        id="a",
        is_arxiv=True,
        title="A",
        chunk_id="a#0",
        kind="abstract",
        section="Abstract",
        page=None,
        text="A.",
        score=1.0,
        url="",
    )
    idf = {f"term{i}": weight / terms for i in range(terms)}  # `terms` terms summing to `weight`
    papers_words = tuple(list(idf)[: round(terms * scholarly)])
    return Retrieved((source,), ranked, (), {}, idf, scholarly=papers_words)


POLICY = RelevancePolicy()


def test_a_close_passage_is_relevant_on_its_own() -> None:
    assert POLICY.is_relevant(_retrieved(dense=0.60, lexical=1.0, terms=4, weight=20.0))
    assert not POLICY.is_relevant(_retrieved(dense=0.30, lexical=1.0, terms=4, weight=20.0))


def test_a_passage_holding_most_of_a_short_querys_rare_words_is_relevant() -> None:
    matched = _retrieved(dense=0.45, lexical=14.0, terms=5, weight=20.0)
    partly = _retrieved(dense=0.45, lexical=8.0, terms=5, weight=20.0)
    far = _retrieved(dense=0.30, lexical=14.0, terms=5, weight=20.0)

    assert matched.lexical_share == 0.7
    assert POLICY.is_relevant(matched)
    assert not POLICY.is_relevant(partly)
    assert not POLICY.is_relevant(far)  # an everyday question sharing rare words by chance


def test_a_long_description_needs_less_cosine_than_a_short_query() -> None:
    long = _retrieved(dense=0.50, lexical=5.0, terms=18, weight=90.0)
    short = _retrieved(dense=0.50, lexical=5.0, terms=6, weight=30.0)

    assert POLICY.is_relevant(long)
    assert not POLICY.is_relevant(short)
    assert not POLICY.is_relevant(_retrieved(dense=0.42, lexical=5.0, terms=18, weight=90.0))


def test_a_question_in_everyday_words_is_refused_however_close_a_passage_seems() -> None:
    everyday = _retrieved(dense=0.70, lexical=14.0, terms=4, weight=20.0, scholarly=0.0)
    scholarly = _retrieved(dense=0.70, lexical=14.0, terms=4, weight=20.0, scholarly=0.5)

    judged = POLICY.judge(everyday)

    assert (judged.relevant, judged.reason) == (False, NOT_SCHOLARLY)
    assert POLICY.judge(scholarly).relevant


def test_a_question_naming_a_method_the_index_defines_is_never_refused() -> None:
    named = Recognised((NameMatch("FiD", "FiD", ("Fusion-in-Decoder",), ("2007.01282",)),))
    plain = _retrieved(dense=0.20, lexical=1.0, terms=4, weight=20.0)
    far = replace(plain, names=named, question_idf={"fid": 8.0, "stand": 2.0})
    in_passing = replace(far, question_idf={"fid": 8.0, **{f"t{i}": 4.0 for i in range(8)}})
    used_only = Recognised((NameMatch("XYZNet", "XYZNet", (), (), users=2),))
    unnamed = replace(plain, names=used_only)

    assert POLICY.judge(far).relevant
    assert not POLICY.judge(in_passing).relevant  # a long question mentioning FiD
    assert POLICY.judge(unnamed) == Judgement(False, NOT_CLOSE)


def test_a_defined_name_spelling_an_english_word_counts_only_as_nearly_all_the_question() -> None:
    mare = NameMatch("MARE", "MARE", ("Multi-Agent Review",), ("2601.20433",), marked=False)
    plain = replace(
        _retrieved(dense=0.20, lexical=1.0, terms=4, weight=20.0), names=Recognised((mare,))
    )
    what_is = replace(plain, question_idf={"mare": 8.0})
    stand_for = replace(plain, question_idf={"mare": 8.0, "stand": 6.0})
    among_others = replace(plain, question_idf={"mare": 8.0, "watch": 4.0, "final": 3.0})

    assert POLICY.judge(what_is).relevant
    assert POLICY.judge(stand_for).relevant  # "stand" frames the question: it weighs less
    assert not POLICY.judge(among_others).relevant
    marked = replace(among_others, names=Recognised((replace(mare, marked=True),)))
    assert POLICY.judge(marked).relevant  # a case-marked name needs only `name_share`


def test_no_sources_is_refused_with_its_own_reason() -> None:
    empty = replace(_retrieved(dense=0.9, lexical=1.0, terms=4, weight=20.0), sources=())

    assert POLICY.judge(empty) == Judgement(False, NOTHING_FOUND)
