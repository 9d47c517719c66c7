"""The read-only tools agents call over MCP: search, one paper, passages, a cited answer,
a table comparing papers.

One `MCPServer` of the official SDK serves both transports: Streamable HTTP
at `/mcp` in the app (`chat/service/mcp/endpoint.py`) and stdio for
`paperchat mcp`. The tools read the index through `Wiring`, as the chat
routes do; `ask` runs the same `Answerer`, so the question checks, the
citation guard and the refusal when the papers do not cover a question are
those of `/api/chat`. Each description names the corpus it covers, counted
from the index when the server is built.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from chat.library.citations import paper_citations, paper_references
from chat.library.papers import MAX_SEARCH_RESULTS, PaperNotFound, paper_details, search_papers
from chat.library.related import related_papers
from chat.rag.answer import answering
from chat.rag.answer.answering import Answerer, Question
from chat.rag.answer.events import Gathered, gather
from chat.rag.answer.llm import UpstreamError
from chat.rag.compare.aspects import DEFAULT_ASPECTS, MAX_ASPECT_CHARS, MAX_ASPECTS, aspects_of
from chat.rag.compare.table import Comparer, Filled, papers_of
from chat.rag.retrieval.config import MAX_QUERY_CHARS
from chat.rag.sources import Source
from chat.service.routes.deps import IsoDate, check_date_range
from chat.service.routes.papers import (
    Citations,
    CitedWork,
    CitingPaper,
    Paper,
    References,
    Related,
    SearchHit,
    related_at_pages,
)
from chat.wiring import Wiring
from ingest.errors import PaperchatError
from ingest.index.filters import Filters
from ingest.index.records import normalise_paper_id
from ingest.text import check_text

SERVER_NAME = "paperchat"
MAX_PASSAGES = 20
MAX_PAPER_IDS = 50
MAX_CATEGORIES = 20
READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)

Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="search text")]
PaperId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        description="an arXiv id (`2203.12533`, `2203.12533v2`, `hep-th/9901001`) or a doc id",
    ),
]
PaperIds = Annotated[
    list[PaperId],
    Field(max_length=MAX_PAPER_IDS, description="only passages of these papers"),
]
Categories = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=32)]],
    Field(max_length=MAX_CATEGORIES, description="arXiv categories, e.g. `cs.CL`"),
]
# The dates of `/api/retrieve`, checked by the same type.
Day = Annotated[IsoDate | None, Field(description="ISO date, inclusive, e.g. 2021-01-31")]


class SearchResults(BaseModel):
    results: list[SearchHit]


class Passage(BaseModel):
    n: int
    id: str
    citation: str
    title: str
    chunk_id: str
    kind: str
    section: str
    page: int | None
    text: str
    score: float
    url: str


class Passages(BaseModel):
    passages: list[Passage]


class Answer(BaseModel):
    answer: str
    citations: list[str]
    dropped_citations: list[str]
    sources: list[dict[str, Any]]
    mode: str
    finish_reason: str


class Comparison(BaseModel):
    aspects: list[str]
    mode: str
    rows: list[dict[str, Any]]


ComparedIds = Annotated[
    list[PaperId],
    Field(min_length=1, max_length=MAX_PAPER_IDS, description="the papers to compare"),
]
Aspects = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_ASPECT_CHARS)]],
    Field(
        max_length=MAX_ASPECTS,
        description=f"what to compare them on; none for {', '.join(DEFAULT_ASPECTS)}",
    ),
]


async def comparison(wiring: Wiring, paper_ids: list[str], aspects: list[str]) -> Comparison:
    """The table of `/api/compare`; unknown papers, bad aspects or a failed model are tool
    errors, in the route's words."""
    comparer = Comparer.of(wiring.answerer)
    filled = Filled()
    try:
        papers = papers_of(wiring.catalog, paper_ids)
        asked = aspects_of(aspects)
        async for _ in comparer.fill(papers, asked, filled):
            pass
    except PaperchatError as e:
        message = e.public_message if isinstance(e, UpstreamError) else str(e)
        raise ToolError(message) from e
    names = [a.name for a in asked]
    return Comparison(aspects=names, mode=comparer.mode, rows=filled.rows(papers, asked))


@dataclasses.dataclass(frozen=True)
class Corpus:
    """What the index holds, as the tools' descriptions state it."""

    papers: int
    with_fulltext: int

    @classmethod
    def of(cls, wiring: Wiring) -> Corpus:
        stats = wiring.catalog.stats()
        return cls(stats["papers"], stats["papers_with_fulltext"])

    def describe(self) -> str:
        return (
            f"Covers the {self.papers} papers of this paperchat index: "
            f"arXiv abstracts and full text of {self.with_fulltext} PDFs."
        )


def filters_of(
    paper_ids: list[str],
    categories: list[str],
    published_from: str | None = None,
    published_to: str | None = None,
) -> Filters:
    """The tools' restrictions as the indexes read them; a bad paper id, or a date range
    that ends before it begins, is a tool error (in the words of `/api/retrieve`'s 422)."""
    try:
        papers = tuple(normalise_paper_id(p) for p in paper_ids)
        check_date_range(published_from, published_to)
    except (PaperchatError, ValueError) as e:
        raise ToolError(str(e)) from e
    return Filters(papers, tuple(categories), published_from or "", published_to or "")


def caller(ctx: Context[Any, Any]) -> str:
    """The id of the user whose API key the `/mcp` request came with (the endpoint puts it
    in the request's state); a tool error without one (over stdio there is no user)."""
    request = ctx.request_context.request
    state = getattr(request, "scope", {}).get("state", {}) if request is not None else {}
    user_id = state.get("user_id")
    if not isinstance(user_id, str):
        raise ToolError("this tool acts for a signed-in user: call it over /mcp with an API key")
    return user_id


def check_question(text: str, max_chars: int) -> str:
    """The question stripped; not valid Unicode, or refused by the answerer's check (blank,
    too long), is a tool error, with the words `/api/chat` answers 422 with."""
    try:
        check_text(text, "the question")
        return answering.check_question(text, max_chars)
    except PaperchatError as e:
        raise ToolError(str(e)) from e


def passage(source: Source) -> Passage:
    return Passage(
        n=source.n,
        id=source.id,
        citation=source.citation,
        title=source.title,
        chunk_id=source.chunk_id,
        kind=source.unit,
        section=source.section,
        page=source.page,
        text=source.text,
        score=round(source.score, 4),
        url=source.url,
    )


async def answer(wiring: Wiring, question: Question, answerer: Answerer | None = None) -> Answer:
    """The events of `answerer` (by default the library's) gathered into one answer; a
    failed answer is a tool error."""
    answering = answerer or wiring.answerer
    gathered = await gather(answering.answer(question), Gathered())
    if gathered.error is not None:
        raise ToolError(f"{gathered.error.code}: {gathered.error.message}")
    done = gathered.done
    assert done is not None, "an answer ends with done or error"
    return Answer(
        answer=gathered.text,
        citations=list(done.citations),
        dropped_citations=list(done.dropped_citations),
        sources=gathered.sources,
        mode=done.mode,
        finish_reason=done.finish_reason,
    )


class PaperTools:
    """The tools' functions over one index; `build_server` registers them."""

    def __init__(self, wiring: Wiring, max_question_chars: int) -> None:
        self.wiring = wiring
        self.max_question_chars = max_question_chars

    def search_papers(
        self,
        query: Query,
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_RESULTS)] = 10,
        categories: Categories | None = None,
        published_from: Day = None,
        published_to: Day = None,
    ) -> SearchResults:
        filters = filters_of([], categories or [], published_from, published_to)
        hits = search_papers(self.wiring.retriever, query, limit, filters)
        return SearchResults(results=[SearchHit(**vars(hit)) for hit in hits])

    def get_paper(self, paper_id: PaperId) -> Paper:
        try:
            return Paper(**paper_details(self.wiring.catalog, paper_id))
        except PaperNotFound as e:
            raise ToolError(str(e)) from e
        except PaperchatError as e:
            raise ToolError(f"not a paper id: {paper_id!r}: {e}") from e

    def get_references(self, paper_id: PaperId) -> References:
        try:
            found = paper_references(self.wiring.catalog, paper_id)
        except PaperchatError as e:
            raise ToolError(str(e)) from e
        return References(references=[CitedWork(**reference) for reference in found])

    def get_citations(self, paper_id: PaperId) -> Citations:
        try:
            found = paper_citations(self.wiring.catalog, paper_id)
        except PaperchatError as e:
            raise ToolError(str(e)) from e
        return Citations(citations=[CitingPaper(**paper) for paper in found])

    def related_papers(self, paper_id: PaperId) -> Related:
        try:
            found = related_papers(self.wiring.catalog, self.wiring.store, paper_id)
        except PaperchatError as e:
            raise ToolError(str(e)) from e
        return related_at_pages(self.wiring.catalog, found)

    def retrieve(
        self,
        query: Query,
        k: Annotated[int, Field(ge=1, le=MAX_PASSAGES)] = 8,
        paper_ids: PaperIds | None = None,
        categories: Categories | None = None,
        published_from: Day = None,
        published_to: Day = None,
    ) -> Passages:
        filters = filters_of(paper_ids or [], categories or [], published_from, published_to)
        retriever = self.wiring.retriever
        config = dataclasses.replace(retriever.config, k=k)
        retrieved = retriever.with_config(config).retrieve(query, filters)
        return Passages(passages=[passage(s) for s in retrieved.sources])

    async def ask(
        self,
        question: Annotated[str, Field(min_length=1, description="the question")],
        paper_ids: PaperIds | None = None,
    ) -> Answer:
        text = check_question(question, self.max_question_chars)
        filters = filters_of(paper_ids or [], [])
        return await answer(self.wiring, Question(text=text, filters=filters))

    async def compare_papers(
        self, paper_ids: ComparedIds, aspects: Aspects | None = None
    ) -> Comparison:
        return await comparison(self.wiring, paper_ids, aspects or [])


def descriptions(corpus: str, max_question_chars: int) -> dict[str, str]:
    """Each tool's description, ending with the corpus it covers."""
    described = {
        "search_papers": "Hybrid (dense + BM25) search for papers, one result per paper, best "
        "first, optionally within arXiv categories and a publication date range.",
        "get_paper": "One paper's record: title, authors, abstract, categories, date, links; "
        "an unknown id is an error.",
        "get_references": "The references a paper's PDF prints (title, authors, year, venue, "
        "arXiv id, DOI), each with resolved_id: the id of the paper of this index it names, or "
        "null; empty for a paper without a PDF; an unknown id is an error.",
        "get_citations": "The papers of this index whose references name a paper (id, title); "
        "an unknown id is an error.",
        "related_papers": "At most 10 papers of this index related to a paper (id, title, "
        "reasons), the most related first: it cites them or they cite it, cited together "
        "with it, sharing its references, or with a similar abstract; an unknown id is an error.",
        "retrieve": "The passages (chunks of abstracts and full text) that best match a query, "
        "with their scores, chunk ids, sections and pages, and no answer.",
        "ask": f"A grounded answer citing its sources as [arXiv:ID], with the sources (a "
        f"question of at most {max_question_chars} characters). Every citation is checked "
        "against the retrieved sources: made-up ones are removed and listed in "
        "dropped_citations; when the papers do not cover the question the answer says so.",
        "compare_papers": "A table comparing papers on aspects (by default task, method, "
        "datasets, metrics, main result, code availability): one cell per paper and aspect, "
        "taken from that paper's own passages, citing the chunk id it comes from, or 'not "
        "found in the paper' with a null citation.",
    }
    return {name: f"{text} {corpus}" for name, text in described.items()}


def build_server(wiring: Wiring, max_question_chars: int) -> MCPServer[Any]:
    """The MCP server with its eight read-only tools, described for the index `wiring` opens."""
    corpus = Corpus.of(wiring).describe()
    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        title="paperchat",
        instructions=f"Search and ask arXiv papers; answers cite them as [arXiv:ID]. {corpus}",
        version="0.1.0",
        log_level="WARNING",
    )
    tools = PaperTools(wiring, max_question_chars)
    for name, description in descriptions(corpus, max_question_chars).items():
        server.add_tool(
            getattr(tools, name), name=name, description=description, annotations=READ_ONLY
        )
    return server
