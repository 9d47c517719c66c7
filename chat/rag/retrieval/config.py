"""How much retrieval finds and keeps (`PAPERCHAT_RETRIEVAL__*`), with each step's config,
and the caps on what one paper gives the answerer (`cap_per_paper`): passages per paper,
and captions, tables and footnotes per paper, with a floor under which a capped-out
passage takes a place back.

The settings read it from the environment; the retriever and the evaluations take it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from chat.rag.bounds import check_bounds, described
from chat.rag.names.config import NamesConfig
from chat.rag.retrieval.coverage import CoverageConfig
from chat.rag.retrieval.expansion import ExpansionConfig, SynonymsConfig
from chat.rag.retrieval.feedback import DenseFeedbackConfig, FeedbackConfig, Rm3Config
from chat.rag.retrieval.fusion import Candidate, FusionConfig
from chat.rag.retrieval.style import StyleConfig
from chat.rag.retrieval.vocabulary import VocabularyConfig
from ingest.index.records import chunk_place
from ingest.index.tables.chunks import UNIT_KINDS

# The longest search text taken: what the search routes, /api/retrieve and the MCP tools
# accept, what the search page keeps of its query, and what a model's rewrite is cut to.
MAX_QUERY_CHARS = 1000
# A PDF's chunks out of its body flow: captions, tables and footnotes.
EXTRA_KINDS = frozenset(UNIT_KINDS["fulltext"]) - {"fulltext"}


@dataclass(frozen=True)
class RetrievalConfig:
    """How many passages are found and kept (`PAPERCHAT_RETRIEVAL__*`), with the configs of
    each step."""

    k: int = field(default=8, metadata=described("passages handed to the answerer", at_least=1))
    candidates: int = field(
        default=100,
        metadata=described(
            "candidates from each retriever (dense and BM25) before fusion", at_least=1
        ),
    )
    per_paper: int = field(
        default=3, metadata=described("passages of one paper at most among the `k`", at_least=1)
    )
    leader_per_paper: int = field(
        default=5, metadata=described("the same for the first-ranked paper", at_least=0)
    )
    per_kind: int = field(
        default=1,
        metadata=described(
            "captions of one paper at most among the `k`, and the same for its tables and for "
            "its footnotes; 0 sets no limit",
            at_least=0,
        ),
    )
    # The cap spreads the answerer's passages over papers, but not down to passages that
    # hardly bear on the question.
    cap_floor: float = field(
        default=0.25,
        metadata=described(
            "a passage left out by the per-paper caps takes the place of a chosen one scoring "
            "under this share of its score (not when the question or the caller name the "
            "papers); 0 never",
            at_least=0,
        ),
    )
    fusion: FusionConfig = field(
        default_factory=FusionConfig,
        metadata=described("how the dense and BM25 rankings are fused"),
    )
    feedback: FeedbackConfig = field(
        default_factory=FeedbackConfig,
        metadata=described("pseudo-relevance feedback: terms of the best passages searched too"),
    )
    rm3: Rm3Config = field(
        default_factory=Rm3Config,
        metadata=described("RM3: the relevance model of BM25's best passages searched too"),
    )
    expansion: ExpansionConfig = field(
        default_factory=ExpansionConfig,
        metadata=described("the BM25 query expanded from the library's own vocabulary"),
    )
    synonyms: SynonymsConfig = field(
        default_factory=SynonymsConfig,
        metadata=described("WordNet's words for the question's everyday words, in BM25's query"),
    )
    dense_feedback: DenseFeedbackConfig = field(
        default_factory=DenseFeedbackConfig,
        metadata=described("the question's vector moved toward its best passages' and searched"),
    )
    style: StyleConfig = field(
        default_factory=StyleConfig,
        metadata=described("fusion weights by how the question is written"),
    )
    coverage: CoverageConfig = field(
        default_factory=CoverageConfig,
        metadata=described(
            "the best fused candidates scored again by what they hold of the question"
        ),
    )
    names: NamesConfig = field(
        default_factory=NamesConfig,
        metadata=described("names the papers define (methods, acronyms) found in the question"),
    )
    vocabulary: VocabularyConfig = field(
        default_factory=VocabularyConfig,
        metadata=described("which of the question's words are the papers' own"),
    )

    def __post_init__(self) -> None:
        check_bounds(self)

    def choose(self, ranked: Sequence[Candidate], *, scoped: bool = False) -> list[Candidate]:
        """The chunks handed to the answerer from `ranked` (`cap_per_paper`). When the
        question or the caller names the papers (`scoped`), each keeps the places the caps
        give it: no floor takes them for another's passages."""
        floor = 0.0 if scoped else self.cap_floor
        return cap_per_paper(
            ranked, self.per_paper, self.k, self.leader_per_paper, self.per_kind, floor
        )


def cap_per_paper(
    ranked: Sequence[Candidate],
    per_paper: int,
    k: int,
    leader: int = 0,
    per_kind: int = 0,
    floor: float = 0.0,
) -> list[Candidate]:
    """The best `k` candidates with at most `per_paper` of one paper, or `leader` (when
    larger) of the first-ranked paper, whose page-level detail a question often needs;
    and, when `per_kind` is set, at most that many of one paper's captions, of its
    tables and of its footnotes, which are short and dense in the question's words and
    would otherwise take the places of the passages that explain them. A candidate the
    per-paper cap left out (a body passage, when `per_kind` is set) then takes the place
    of the weakest chosen one while that scores less than `floor` times its score; the
    list stays in ranked order."""
    chosen: list[Candidate] = []
    capped: list[Candidate] = []
    taken: Counter[str] = Counter()
    extras: Counter[tuple[str, str]] = Counter()
    first = ranked[0].paper_id if ranked else ""
    for candidate in ranked:
        kind = chunk_kind(candidate.chunk_id)
        cap = max(per_paper, leader) if candidate.paper_id == first else per_paper
        if taken[candidate.paper_id] >= cap:
            if not (per_kind and kind in EXTRA_KINDS):
                capped.append(candidate)
            continue
        extra = (candidate.paper_id, kind)
        if per_kind and kind in EXTRA_KINDS:
            if extras[extra] >= per_kind:
                continue
            extras[extra] += 1
        taken[candidate.paper_id] += 1
        chosen.append(candidate)
        if len(chosen) == k:
            break
    return _raise_capped(chosen, capped, floor, ranked)


def _raise_capped(
    chosen: list[Candidate], capped: list[Candidate], floor: float, ranked: Sequence[Candidate]
) -> list[Candidate]:
    """`chosen` with capped-out candidates (best first) in the places of chosen ones
    scoring under `floor` times theirs, weakest first; in the order of `ranked`."""
    if not floor or not capped or not chosen:
        return chosen
    kept = list(chosen)
    for candidate in capped:
        weakest = min(range(len(kept)), key=lambda i: kept[i].score)
        if kept[weakest].score >= floor * candidate.score:
            break
        kept[weakest] = candidate
    if kept == chosen:
        return chosen
    place = {c.chunk_id: i for i, c in enumerate(ranked)}
    return sorted(kept, key=lambda c: place[c.chunk_id])


def chunk_kind(chunk_id: str) -> str:
    """A chunk's kind, read from its id (`chunk_place`); "" when it has none."""
    place = chunk_place(chunk_id)
    return place[0] if place else ""
