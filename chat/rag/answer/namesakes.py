"""Which paper an answer took a name to mean, when several papers introduce that name.

"RETRO" is DeepMind's retrieval-enhanced Transformer and also a tactile-learning
method of 2025; "RAG" is the 2020 paper and a hundred later systems. The
retriever reads one of them first (`chat/rag/names/recognition.py`); the answer
says which one it answered for, in its last line and in its `done` event, and
names the others, so that a reader who meant another can ask again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from chat.rag.names.matches import NameMatch, Recognised

SHOWN = 3  # the other readings named in the answer's line (the event lists more)
LISTED = 10  # the other readings the `done` event lists


@dataclass(frozen=True)
class Namesake:
    name: str  # as the question wrote it
    paper: str  # the paper the answer took it to mean
    title: str
    others: tuple[tuple[str, str], ...]  # (id, title) of other papers introducing the name
    other_count: int  # all of them, listed or not

    def data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "paper": self.paper,
            "title": self.title,
            "others": [{"id": paper, "title": title} for paper, title in self.others],
            "other_count": self.other_count,
        }

    def line(self) -> str:
        """The answer's last line: which paper, and the other readings."""
        shown = ", ".join(f"\u201c{title}\u201d" for _, title in self.others[:SHOWN])
        more = self.other_count - min(SHOWN, len(self.others))
        tail = f" and {more} more" if more > 0 else ""
        return (
            f"\n\n{self.name} here is \u201c{self.title}\u201d; other papers also called "
            f"{self.name}: {shown}{tail}."
        )


def namesake_of(
    names: Recognised,
    cited: Sequence[str],
    title_of: Callable[[str], str | None],
    written: str | None = None,
) -> Namesake | None:
    """The first name of the question that several papers introduce, read as the one of
    them the answer cites first; None when no such name, or the answer cites none of
    its papers. With `written`, the words the user wrote, only a name they hold counts:
    a follow-up searched with the name of the previous question ("And how big is its
    database?" after "What is RETRO?") was already answered for one of its papers."""
    for match in names.matches:
        if len(match.introducers) < 2:
            continue
        if written is not None and not _written_in(match, written):
            continue
        chosen = next((paper for paper in cited if paper in match.introducers), None)
        title = title_of(chosen) if chosen else None
        if chosen is None or title is None:
            continue
        rest = [paper for paper in match.introducers if paper != chosen]
        others = tuple(
            (paper, found) for paper in rest[:LISTED] if (found := title_of(paper)) is not None
        )
        return Namesake(match.asked or match.name, chosen, title, others, len(rest))
    return None


def _written_in(match: NameMatch, written: str) -> bool:
    """Whether `written` holds the name as the question wrote it, spelled out or apart."""
    text = written.lower()
    return any(form and form.lower() in text for form in (match.asked, match.written, match.apart))
