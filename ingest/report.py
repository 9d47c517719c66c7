"""What an ingest run did, as the user sees it and as `--json` prints it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Skipped:
    """An input item left out of the index, with the reason shown to the user."""

    source: str
    reason: str


@dataclass(frozen=True)
class Unchanged:
    """An input item already indexed as it is, not read again (a PDF this stage parsed)."""

    paper_id: str
    source: str


@dataclass
class IngestReport:
    added_papers: int = 0
    updated_papers: int = 0
    unchanged_papers: int = 0
    chunks_added: int = 0
    chunks_deleted: int = 0
    pages_parsed: int = 0
    # Per PDF file, the pages whose layout could not be read, taken as plain text.
    pages_fallback: dict[str, int] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0

    def finish(self) -> IngestReport:
        self.seconds = round(time.perf_counter() - self.started, 3)
        return self

    @property
    def exit_code(self) -> int:
        """0 when everything went in, 1 when some items were skipped."""
        return 1 if self.skipped else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "added_papers": self.added_papers,
            "updated_papers": self.updated_papers,
            "unchanged_papers": self.unchanged_papers,
            "chunks_added": self.chunks_added,
            "chunks_deleted": self.chunks_deleted,
            "pages_parsed": self.pages_parsed,
            "pages_fallback": dict(self.pages_fallback),
            "skipped": [{"source": s.source, "reason": s.reason} for s in self.skipped],
            "seconds": self.seconds,
        }

    def summary(self) -> str:
        line = (
            f"{self.added_papers} papers added, {self.updated_papers} updated, "
            f"{self.unchanged_papers} unchanged; {self.chunks_added} chunks added, "
            f"{self.chunks_deleted} deleted; {len(self.skipped)} skipped; {self.seconds:.1f} s"
        )
        reasons = [f"  skipped {s.source}: {s.reason}" for s in self.skipped]
        fallbacks = [
            f"  {path}: {pages} page(s) read as plain text, their layout could not be read"
            for path, pages in self.pages_fallback.items()
        ]
        return "\n".join([line, *reasons, *fallbacks])
