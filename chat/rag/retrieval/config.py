"""How much retrieval finds and keeps (`PAPERCHAT_RETRIEVAL__*`), with each step's config.

The settings read it from the environment; the retriever and the evaluations take it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from chat.rag.bounds import check_bounds, described
from chat.rag.names.config import NamesConfig
from chat.rag.retrieval.caps import cap_per_paper
from chat.rag.retrieval.coverage import CoverageConfig
from chat.rag.retrieval.expansion import ExpansionConfig
from chat.rag.retrieval.feedback import FeedbackConfig, Rm3Config
from chat.rag.retrieval.fusion import Candidate, FusionConfig
from chat.rag.retrieval.style import StyleConfig
from chat.rag.retrieval.vocabulary import VocabularyConfig

# The longest search text taken: what the search routes, /api/retrieve and the MCP tools
# accept, what the search page keeps of its query, and what a model's rewrite is cut to.
MAX_QUERY_CHARS = 1000


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
