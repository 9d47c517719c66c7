"""Query rewriting with the chat model, off unless `PAPERCHAT_QUERY_REWRITE` asks for it.

People describe an idea in plain words the papers do not use. With a model
configured, the question can be searched together with the model's
rewrites of it:

- `multi`: a few search queries in the field's own terms (`prompts/rewrite.txt`);
- `hyde`: a hypothetical abstract that would answer it (`prompts/hyde.txt`).

Each query is retrieved as usual and the ranked chunks are fused by
reciprocal rank, the question's own ranking weighted highest. Whether the
sources support an answer is still judged on the question's own retrieval
(a made-up abstract always matches something). A model that fails leaves
the question to be searched alone. It costs one model call before
retrieval and cannot be measured offline, so it stays off by default.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from chat.rag.answer.llm import ChatModel, UpstreamError
from chat.rag.answer.prompts import DEFAULT_DIRECTORY, VersionedPrompt, load_prompt
from chat.rag.retrieval.config import MAX_QUERY_CHARS
from chat.rag.retrieval.fusion import Candidate, reciprocal_rank_fusion
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.retrieval.retriever import Retriever
from ingest.index.filters import Filters

logger = logging.getLogger("paperchat.rewriting")

RewriteMode = Literal["off", "multi", "hyde"]
# The weight of each rewrite's ranking against the question's own.
REWRITE_WEIGHT = 0.8
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)]|query\s*\d*:)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class QueryRewriter:
    model: ChatModel
    prompt: VersionedPrompt
    mode: Literal["multi", "hyde"]
    count: int = 3

    @classmethod
    def build(cls, model: ChatModel, mode: RewriteMode, count: int = 3) -> QueryRewriter | None:
        """The rewriter for `mode`, or None when it is off."""
        if mode == "off":
            return None
        name = "rewrite" if mode == "multi" else "hyde"
        return cls(model, load_prompt(DEFAULT_DIRECTORY / f"{name}.txt"), mode, count)

    async def rewrite(self, question: str) -> list[str]:
        """The model's queries for `question` (none when the model fails)."""
        values = {"question": question.strip()}
        if self.mode == "multi":
            values["count"] = str(self.count)
        messages = [{"role": "user", "content": self.prompt.format(**values)}]
        try:
            reply = await self.model.complete(messages)
        except UpstreamError as e:
            logger.warning("query rewriting failed, searching the question alone: %s", e.code)
            return []
        return parse_queries(reply, question, self.mode, self.count)


def parse_queries(reply: str, question: str, mode: str, count: int) -> list[str]:
    """Distinct, non-empty queries from the model's reply, none equal to the question."""
    if mode == "hyde":
        lines = [" ".join(reply.split())]
    else:
        lines = [_LIST_MARKER.sub("", line).strip().strip('"') for line in reply.splitlines()]
    seen = {question.strip().casefold()}
    queries = []
    for line in lines:
        query = line[:MAX_QUERY_CHARS]
        if query and query.casefold() not in seen:
            seen.add(query.casefold())
            queries.append(query)
    return queries[: count if mode == "multi" else 1]


def retrieve_with_rewrites(
    retriever: Retriever, question: str, rewrites: Sequence[str], filters: Filters
) -> tuple[Retrieved, Retrieved]:
    """(the question's own retrieval, the fused retrieval of the question and its rewrites)."""
    started = time.perf_counter()
    own = retriever.retrieve(question, filters)
    if not rewrites:
        return own, own
    scope = replace(filters, paper_ids=own.scoped_to)
    others = [retriever.retrieve(query, scope) for query in rewrites]
    config = retriever.config
    ranked = fuse_rankings([own.ranked, *(r.ranked for r in others)], config.fusion.rrf_k)
    chosen = config.choose(ranked, scoped=bool(own.scoped_to))
    sources = retriever.sources_for(chosen)
    timings = dict(own.timings)
    timings["retrieval_ms"] = (time.perf_counter() - started) * 1000
    timings["queries"] = float(1 + len(others))
    fused = Retrieved(
        tuple(sources),
        tuple(ranked),
        own.scoped_to,
        timings,
        own.question_idf,
        own.names,
        own.scholarly,
        own.degraded,
    )
    return own, fused


def fuse_rankings(rankings: Sequence[Sequence[Candidate]], rrf_k: float) -> list[Candidate]:
    """Chunks ranked by weighted reciprocal rank over every query's ranking, the first (the
    question's own) at weight 1 and the rewrites at `REWRITE_WEIGHT`."""
    weighted = [
        ([c.chunk_id for c in ranking], 1.0 if number == 0 else REWRITE_WEIGHT)
        for number, ranking in enumerate(rankings)
    ]
    scores = reciprocal_rank_fusion(weighted, rrf_k)
    first_seen: dict[str, Candidate] = {}
    for ranking in rankings:
        for candidate in ranking:
            first_seen.setdefault(candidate.chunk_id, candidate)
    order = sorted(scores, key=lambda chunk: -scores[chunk])
    return [replace(first_seen[chunk], score=scores[chunk]) for chunk in order]
