"""The passages an answer is grounded in, as retrieval hands them to answering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote


@dataclass(frozen=True)
class Source:
    """One retrieved chunk, numbered for the prompt and the `sources` event."""

    n: int
    id: str  # arXiv id without version, or a document's hash id
    is_arxiv: bool
    title: str
    chunk_id: str
    kind: str  # "abstract", "fulltext", a PDF's "caption", "table", "footnote"; or "record"
    section: str
    page: int | None  # first page of the chunk; None for an abstract
    text: str  # the whole chunk, what the answer may quote
    score: float
    url: str

    @property
    def citation(self) -> str:
        """How answers cite it: `[arXiv:2203.12533]` or `[doc:<id>]`."""
        return f"[arXiv:{self.id}]" if self.is_arxiv else f"[doc:{self.id}]"

    @property
    def unit(self) -> str:
        """What the contract calls its kind: "abstract" (also for the catalog's record of
        the paper), or "fulltext" for any part of a PDF."""
        return "abstract" if self.kind in ("abstract", "record") else "fulltext"

    @property
    def part(self) -> str:
        """Which part of its paper: "abstract", "body", "caption", "table", "footnote" or
        "record" (the catalog's record: authors, dates, venue)."""
        return "body" if self.kind == "fulltext" else self.kind

    def snippet(self, length: int = 300) -> str:
        if len(self.text) <= length:
            return self.text
        cut = self.text.rfind(" ", 0, length)
        return self.text[: cut if cut > 0 else length] + "…"

    def as_event(self) -> dict[str, Any]:
        """The source as the `sources` event and `--json` show it."""
        return {
            "n": self.n,
            "id": self.id,
            "title": self.title,
            "chunk_id": self.chunk_id,
            "kind": self.unit,
            "part": self.part,
            "section": self.section,
            "page": self.page,
            "snippet": self.snippet(),
            "score": round(self.score, 4),
            "url": self.url,
            "path": self.path,
        }

    @property
    def path(self) -> str:
        """Its paper's page on this site, canonical and escaped: `/papers/<id>-<title-slug>`."""
        from ingest.index.paths import paper_path

        return quote(paper_path(self.id, self.title, self.is_arxiv))
