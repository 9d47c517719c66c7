from __future__ import annotations

import json
from typing import Any

import pytest

import chat.rag.retrieval.fusion
import chat.rag.retrieval.retriever
from chat.rag.retrieval.config import RetrievalConfig, cap_per_paper, chunk_kind
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.retriever import ids_in_question
from chat.wiring import Wiring
from ingest.index.filters import Filters, date_number
from tests.support.data import EVAL

pytestmark = pytest.mark.timeout(600)


def _dev_questions(kind: str, count: int = 40) -> list[dict[str, str]]:
    with (EVAL / "questions-abstracts.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(x) for x in lines][:count]
    return [r for r in rows if r["type"] == kind]


def test_ids_are_found_in_every_written_form() -> None:
    text = (
        "Compare 2203.12533 with arXiv:2005.11401v4, https://arxiv.org/abs/1706.03762v7 "
        "and arxiv.org/pdf/hep-th/9901001; not 3.14159 or 12345.6789."
    )

    found = ids_in_question(text)

    assert found == ["2203.12533", "2005.11401", "1706.03762", "hep-th/9901001"]


def test_keyword_questions_find_their_paper_first(small_index: Wiring) -> None:
    questions = _dev_questions("keyword")

    firsts = [
        small_index.retriever.retrieve(q["question"]).paper_ranking()[0] == q["gold_id"]
        for q in questions
    ]

    assert len(questions) >= 10
    assert sum(firsts) / len(firsts) >= 0.9


def test_sources_are_numbered_and_carry_what_a_citation_needs(small_index: Wiring) -> None:
    retrieved = small_index.retriever.retrieve(
        "How does Fusion-in-Decoder combine retrieved passages in the decoder?"
    )

    sources = retrieved.sources
    assert [s.n for s in sources] == list(range(1, len(sources) + 1))
    assert len(sources) == small_index.retriever.config.k
    fulltext = [s for s in sources if s.kind == "fulltext"]
    assert fulltext
    assert all(s.page is not None and s.page >= 1 for s in fulltext)
    assert all(s.page is None for s in sources if s.kind == "abstract")
    top = sources[0]
    assert top.id == "2007.01282"
    assert top.url == "https://arxiv.org/abs/2007.01282"
    assert top.citation == "[arXiv:2007.01282]"
    assert top.title
    assert top.chunk_id.startswith("2007.01282#")


def test_no_paper_fills_more_than_its_share_of_the_sources(small_index: Wiring) -> None:
    retriever = small_index.retriever

    retrieved = retriever.retrieve("passages retrieved for open domain question answering reader")

    counts: dict[str, int] = {}
    for source in retrieved.sources:
        counts[source.id] = counts.get(source.id, 0) + 1
    leader = counts.pop(retrieved.sources[0].id)
    assert leader <= retriever.config.leader_per_paper
    assert max(counts.values()) <= retriever.config.per_paper
    assert len(counts) >= 2


def test_the_first_ranked_paper_may_fill_more_of_the_sources() -> None:
    ranked = [Candidate(f"a#{i}", "a", 1.0 - i / 100) for i in range(6)]
    ranked += [Candidate(f"b#{i}", "b", 0.5 - i / 100) for i in range(6)]

    chosen = cap_per_paper(ranked, per_paper=2, k=8, leader=4)
    plain = cap_per_paper(ranked, per_paper=2, k=8)

    assert [c.chunk_id for c in chosen] == ["a#0", "a#1", "a#2", "a#3", "b#0", "b#1"]
    assert [c.chunk_id for c in plain] == ["a#0", "a#1", "b#0", "b#1"]


def test_a_capped_out_passage_replaces_chosen_ones_that_hardly_bear_on_the_question() -> None:
    """One paper holds the answer, the others score a twentieth of it: past the cap, its
    passages take the places of those, weakest first, and the list stays ranked."""
    ranked = [Candidate(f"a#fulltext-{i}@d", "a", 2.0 - i / 10) for i in range(7)]
    ranked += [Candidate("b#fulltext-0@d", "b", 0.5), Candidate("c#fulltext-0@d", "c", 0.1)]
    ranked += [Candidate(f"d#fulltext-{i}@d", "d", 0.09 - i / 100) for i in range(3)]
    ranked += [Candidate("a#caption-9@d", "a", 1.0)]
    ranked.sort(key=lambda c: c.score, reverse=True)

    raised = cap_per_paper(ranked, per_paper=2, k=8, leader=4, per_kind=1, floor=0.25)
    plain = cap_per_paper(ranked, per_paper=2, k=8, leader=4, per_kind=1)

    assert [c.chunk_id for c in plain] == [
        *(f"a#fulltext-{i}@d" for i in range(4)),
        "b#fulltext-0@d",
        "c#fulltext-0@d",
        "d#fulltext-0@d",
        "d#fulltext-1@d",
    ]
    # 0.1 and below are under a quarter of 1.6 and 1.5; 0.5 is not under a quarter of 1.4.
    assert [c.chunk_id for c in raised] == [
        *(f"a#fulltext-{i}@d" for i in range(7)),
        "b#fulltext-0@d",
    ]
    assert [c.score for c in raised] == sorted((c.score for c in raised), reverse=True)


def test_an_id_in_the_question_scopes_retrieval_to_that_paper(small_index: Wiring) -> None:
    retrieved = small_index.retriever.retrieve(
        "What does arXiv:1503.02531v1 say about temperature?"
    )

    assert retrieved.scoped_to == ("1503.02531",)
    assert {s.id for s in retrieved.sources} == {"1503.02531"}


def test_a_leading_clause_naming_a_paper_scopes_retrieval_to_it(small_index: Wiring) -> None:
    retrieved = small_index.retriever.retrieve(
        "In the FiD paper, how many passages does the reader take?"
    )

    assert retrieved.scoped_to == ("2007.01282",)
    assert {s.id for s in retrieved.sources} == {"2007.01282"}


@pytest.mark.parametrize(
    "question",
    [
        "In practice, what does MIPS stand for?",
        "In 2020, what does MIPS stand for?",
        # A description, not a name: a title that begins with it may be another paper.
        "In the knowledge distillation paper, what is the temperature?",
    ],
)
def test_a_leading_clause_that_names_no_paper_does_not_scope(
    small_index: Wiring, question: str
) -> None:
    retrieved = small_index.retriever.retrieve(question)

    assert retrieved.scoped_to == ()


def test_an_unknown_id_in_the_question_does_not_scope(small_index: Wiring) -> None:
    retrieved = small_index.retriever.retrieve("What does 2999.99999 say about distillation?")

    assert retrieved.scoped_to == ()
    assert retrieved.sources


def test_explicit_paper_ids_restrict_both_retrievers(small_index: Wiring) -> None:
    filters = Filters(paper_ids=("2304.02623",))

    retrieved = small_index.retriever.retrieve("knowledge distillation temperature", filters)

    assert {c.paper_id for c in retrieved.ranked} == {"2304.02623"}


def test_category_and_date_filters_restrict_results(small_index: Wiring) -> None:
    catalog = small_index.catalog
    question = "a method that improves performance on benchmarks"

    by_category = small_index.retriever.retrieve(question, Filters(categories=("cs.CV",)))
    by_date = small_index.retriever.retrieve(
        question, Filters(published_from="2026-01-01", published_to="2026-12-31")
    )

    assert by_category.ranked
    for candidate in by_category.ranked:
        paper = catalog.get_paper(candidate.paper_id)
        assert paper is not None
        assert "cs.CV" in paper.categories
    assert by_date.ranked
    for candidate in by_date.ranked:
        paper = catalog.get_paper(candidate.paper_id)
        assert paper is not None
        # A paper of unknown date is kept: nothing says it is outside the range.
        # A paper known by its month alone sorts at the month's first day.
        assert paper.published == "" or 20260101 <= date_number(paper.published) <= 20261231


def test_dense_hits_name_each_chunks_paper_best_first(small_index: Wiring) -> None:
    retriever = small_index.retriever

    hits = retriever.dense("knowledge distillation with a soft target temperature", Filters())

    rows = retriever.catalog.chunk_rows([chunk_id for chunk_id, _, _ in hits])
    assert len(hits) == retriever.config.candidates
    assert [paper for _, paper, _ in hits] == [rows[c].paper_id for c, _, _ in hits]
    similarities = [similarity for _, _, similarity in hits]
    assert similarities == sorted(similarities, reverse=True)
    assert -1.0 <= similarities[-1] <= similarities[0] <= 1.0


def test_questions_embed_exactly_as_with_the_document_embedder(small_index: Wiring) -> None:
    questions = [q["question"] for q in _dev_questions("paraphrase")]

    by_query_embedder = [small_index.query_embedder.embed([q]) for q in questions]
    by_document_embedder = [small_index.embedder.embed([q]) for q in questions]

    assert small_index.retriever.embedder is small_index.query_embedder
    assert len(questions) >= 5
    for ours, theirs in zip(by_query_embedder, by_document_embedder, strict=True):
        assert ours.tobytes() == theirs.tobytes()


def test_fusion_reads_the_questions_term_weight(
    small_index: Wiring, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The long-description rule needs the question's summed inverse document frequencies."""
    seen: list[float] = []
    real_fuse = chat.rag.retrieval.fusion.fuse

    def recording(*args: Any, **kwargs: Any) -> list[Candidate]:
        seen.append(args[5] if len(args) > 5 else kwargs.get("term_weight", 0.0))
        return real_fuse(*args, **kwargs)

    monkeypatch.setattr(chat.rag.retrieval.retriever, "fuse", recording)
    question = "retrieval augmented language models with a trillion token database"
    retrieved = small_index.retriever.retrieve(question)

    assert seen == [pytest.approx(retrieved.term_weight)]
    assert retrieved.term_weight > 0


def test_one_caption_and_one_table_of_a_paper_at_most_leave_room_for_its_body() -> None:
    ranked = [
        Candidate("a#caption-1@d", "a", 0.99),
        Candidate("a#caption-2@d", "a", 0.98),
        Candidate("a#table-3@d", "a", 0.97),
        Candidate("a#table-4@d", "a", 0.96),
        Candidate("a#fulltext-5@d", "a", 0.50),
        Candidate("a#fulltext-6@d", "a", 0.40),
    ]

    capped = cap_per_paper(ranked, per_paper=4, k=8, per_kind=1)
    uncapped = cap_per_paper(ranked, per_paper=4, k=8)

    assert [c.chunk_id for c in capped] == [
        "a#caption-1@d",
        "a#table-3@d",
        "a#fulltext-5@d",
        "a#fulltext-6@d",
    ]
    assert [chunk_kind(c.chunk_id) for c in uncapped] == ["caption", "caption", "table", "table"]
    assert RetrievalConfig().choose(ranked) == cap_per_paper(ranked, 3, 8, 5, 1, 0.25)


def test_papers_the_caller_names_keep_their_places_under_the_floor() -> None:
    ranked = [Candidate(f"a#fulltext-{i}@d", "a", 2.0 - i / 10) for i in range(8)]
    ranked += [Candidate(f"b#fulltext-{i}@d", "b", 0.2 - i / 100) for i in range(3)]
    config = RetrievalConfig(per_paper=3, leader_per_paper=5)

    free = config.choose(ranked)
    scoped = config.choose(ranked, scoped=True)

    assert {c.paper_id for c in free} == {"a"}
    assert [c.paper_id for c in scoped] == ["a"] * 5 + ["b"] * 3


def test_a_follow_up_names_another_paper_by_a_name_that_one_introduces_and_the_others_never_print(
    small_index: Wiring,
) -> None:
    retriever = small_index.retriever
    question = "and what about FiD, how many passages does it read?"

    elsewhere = retriever.names_another(question, ["1503.02531"])  # the distillation paper
    own = retriever.names_another(question, ["2007.01282"])  # FiD's
    unnamed = retriever.names_another("and how many passages does it read?", ["1503.02531"])

    assert (elsewhere, own, unnamed) == (True, False, False)


def test_one_retrieval_reads_each_papers_passages_from_the_catalog_once(
    small_index: Wiring, monkeypatch: pytest.MonkeyPatch
) -> None:
    retriever = small_index.retriever
    catalog = retriever.catalog
    read = catalog.unit_chunks
    reads: list[tuple[str, str]] = []

    def counting(paper_id: str, unit: str) -> Any:
        reads.append((paper_id, unit))
        return read(paper_id, unit)

    monkeypatch.setattr(catalog, "unit_chunks", counting)
    question = "In 2007.01282, how many passages does Fusion-in-Decoder read for each question?"
    retriever.retrieve(question)
    retriever.retrieve(question)

    # Each retrieval reads the paper once: none keeps what the one before read.
    assert [r for r in reads if r[1] == "abstract"] == [("2007.01282", "abstract")] * 2
