"""The cheap retrieval levers: the question's style, RM3 on BM25, expansion from the library's
vocabulary. Each is off by default and changes nothing until turned on."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.expansion import (
    ExpansionConfig,
    cooccurring_terms,
    expandable,
    merged,
)
from chat.rag.retrieval.feedback import Rm3Config, relevance_model
from chat.rag.retrieval.fusion import FusionConfig
from chat.rag.retrieval.style import StyleConfig, query_style
from chat.wiring import Wiring
from tests.support.data import EVAL

pytestmark = pytest.mark.timeout(600)

DOCUMENTS = 10_000
UNKNOWN = math.log(1 + DOCUMENTS)


def _style(question: str, idf: Mapping[str, float], scholarly: Sequence[str] = ()) -> str:
    return query_style(question, idf, scholarly, DOCUMENTS, StyleConfig())


def test_a_few_words_are_a_short_query() -> None:
    assert _style("occupancy world model end-to-end driving", {"occup": 5.0}) == "short"


def test_shorthand_or_a_word_no_passage_holds_make_a_query_messy() -> None:
    shorthand = "sparse view CT recon w dual transformer and few xray projections"
    typo = "sparse view cone beam reconstruction with a dual transfomer encoder network"

    assert _style(shorthand, {"spars": 3.0, "recon": 4.0}, ["spars"]) == "messy"
    assert _style(typo, {"spars": 3.0, "transfom": UNKNOWN}, ["spars"]) == "messy"


def test_a_long_question_in_everyday_words_is_layman_and_in_the_papers_words_messy() -> None:
    question = "How can I measure how long cucumbers are in a greenhouse with a camera?"
    idf = {"measur": 2.0, "long": 1.0, "cucumb": 7.0, "greenhous": 6.0, "camera": 3.0}

    assert _style(question, idf, ["camera"]) == "layman"
    assert _style(question, idf, ["cucumb", "greenhous", "measur", "camera"]) == "messy"


def test_an_everyday_word_no_passage_holds_is_no_typo() -> None:
    question = "How can I measure how long cucumbers are in a greenhouse with a camera?"
    idf = {"measur": 2.0, "long": 1.0, "cucumb": UNKNOWN, "greenhous": 6.0, "camera": 3.0}

    assert _style(question, idf, ["camera"]) == "layman"


def test_style_weights_change_the_fusion_only_when_turned_on() -> None:
    fusion = FusionConfig()

    assert StyleConfig().fusion_for("layman", fusion) == fusion
    chosen = StyleConfig(enabled=True, layman_dense_weight=2.0).fusion_for("layman", fusion)
    assert chosen.dense_weight == 2.0
    assert chosen.lexical_weight == fusion.lexical_weight


PASSAGES = (
    ("Steganalysis detects hidden messages in JPEG images with a residual network.", 12.0),
    ("A lightweight steganalysis network for JPEG images cuts FLOPs by 97 percent.", 10.0),
    ("Image classification with residual networks on photos.", 2.0),
)
FREQUENCY = {"steganalysi": 40, "jpeg": 300, "imag": 4000, "network": 6000, "residu": 900}


def _frequency(stems: Sequence[str]) -> Mapping[str, int]:
    return {stem: FREQUENCY.get(stem, 1) for stem in stems}


def test_rm3_weighs_the_terms_of_the_best_scored_passages_most() -> None:
    found = relevance_model(PASSAGES, ["hidden"], _frequency, Rm3Config(terms=5))

    terms = [term for term, _ in found]
    # In every passage first, then in the two best ones; "photo" is in the weakest only,
    # and in one chunk of the index: a name or a typo.
    assert terms == ["imag", "network", "jpeg", "steganalysi", "residu"]
    weights = dict(found)
    assert weights["imag"] > weights["jpeg"] > weights["residu"]
    # The question keeps `original_weight` of the query: with one term, the rest share 2/3.
    total = sum(weight for _, weight in found)
    assert total == pytest.approx((1 - 0.6) / 0.6)


def test_rm3_finds_nothing_without_passages_or_question_terms() -> None:
    assert relevance_model([], ["hidden"], _frequency, Rm3Config(terms=3)) == []
    assert relevance_model(PASSAGES, [], _frequency, Rm3Config(terms=3)) == []


def test_rm3_refuses_a_question_share_above_one() -> None:
    with pytest.raises(ValueError, match="share"):
        Rm3Config(original_weight=1.5)


def test_cooccurring_terms_are_those_a_terms_passages_share_and_the_index_rarely_holds() -> None:
    texts = [text for text, _ in PASSAGES]
    config = ExpansionConfig(cooccurring=2, weight=0.5)

    found = cooccurring_terms(texts, ["hidden"], _frequency, DOCUMENTS, config)

    assert [term for term, _ in found] == ["steganalysi", "jpeg"]
    assert found[0][1] == 0.5
    assert 0 < found[1][1] < 0.5


def test_only_rarer_question_terms_are_expanded() -> None:
    idf = {"steganalysi": 5.0, "network": 0.5, "flopz": UNKNOWN, "97": 4.0}
    frequency = {"steganalysi": 40, "network": 6000, "flopz": 1, "97": 50}

    assert expandable(idf, frequency, DOCUMENTS, 0.02) == ["steganalysi"]


def test_merged_keeps_each_terms_largest_weight() -> None:
    assert merged([("a", 0.3), ("b", 1.0)], [("a", 0.5), ("c", 0.1)]) == [
        ("a", 0.5),
        ("b", 1.0),
        ("c", 0.1),
    ]


def _keyword_questions() -> list[dict[str, str]]:
    with (EVAL / "questions-abstracts.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(x) for x in lines][:40]
    return [r for r in rows if r["type"] == "keyword"]


@pytest.mark.parametrize(
    "lever",
    [
        {"rm3": Rm3Config(terms=10)},
        {"expansion": ExpansionConfig(all_names=True, cooccurring=3)},
        {"style": StyleConfig(enabled=True)},
    ],
    ids=["rm3", "expansion", "style"],
)
def test_each_lever_keeps_keyword_questions_finding_their_paper(
    small_index: Wiring, lever: dict[str, object]
) -> None:
    retriever = small_index.retriever.with_config(replace(RetrievalConfig(), **lever))  # type: ignore[arg-type]
    questions = _keyword_questions()

    firsts = [
        retriever.retrieve(q["question"]).paper_ranking()[0] == q["gold_id"] for q in questions
    ]

    assert sum(firsts) / len(firsts) >= 0.9


def test_rm3_searches_bm25_again_with_the_terms_of_its_best_passages(small_index: Wiring) -> None:
    question = _keyword_questions()[0]["question"]
    plain = small_index.retriever.retrieve(question)
    again = small_index.retriever.with_config(RetrievalConfig(rm3=Rm3Config(terms=10)))

    expanded = again.retrieve(question)

    lexical = [c.chunk_id for c in plain.ranked_by("lexical")]
    assert [c.chunk_id for c in expanded.ranked_by("lexical")] != lexical
