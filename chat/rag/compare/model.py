"""A comparison's cell answered by the chat model from one paper's passages.

One short answer per cell, from the prompt `prompts/compare.txt` after the
rules of answering (`system.txt`), read through the citation guard
(`chat/rag/citations/guard.py`) as answers are: a citation of anything but the
paper's passages is removed and reported. The cell cites the paper
(`[arXiv:ID]`); a cell whose answer cites none of the passages, or says the
paper does not tell, is `NOT_FOUND` and cites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from chat.rag.answer.llm import ChatModel
from chat.rag.answer.prompts import DEFAULT_DIRECTORY, Prompts, VersionedPrompt, format_sources
from chat.rag.answer.prompts import load_prompt as load_prompt_file
from chat.rag.citations.guard import CITATION_PATTERN, CitationGuard
from chat.rag.compare.aspects import NOT_FOUND, Aspect
from chat.rag.compare.cells import MAX_CELL_CHARS, Cell
from chat.rag.sources import Source

_CITATION = re.compile(r"\s*" + CITATION_PATTERN)
# An answer that says the passages do not tell.
_DECLINES = re.compile(
    r"\bnot (?:found|mentioned|stated|given|reported|specified|available in the)"
    r"|\b(?:do|does) not (?:say|mention|state|specify|report)|\bno information\b",
    re.IGNORECASE,
)


@cache
def load_prompt() -> VersionedPrompt:
    """The cell's prompt, `prompts/compare.txt`, read once."""
    return load_prompt_file(DEFAULT_DIRECTORY / "compare.txt")


@dataclass(frozen=True)
class Answered:
    """A cell the model answered, and the citations its answer made up (removed)."""

    cell: Cell
    dropped: tuple[str, ...]


class CellModel:
    """Asks the chat model for one cell at a time."""

    def __init__(self, model: ChatModel, prompts: Prompts, prompt: VersionedPrompt) -> None:
        self.model = model
        self.prompts = prompts
        self.prompt = prompt

    @property
    def version(self) -> str:
        return f"{self.prompts.system.version}+{self.prompt.version}"

    def messages(self, aspect: Aspect, sources: Sequence[Source]) -> list[dict[str, str]]:
        user = self.prompt.format(
            sources=format_sources(sources), aspect=aspect.name, question=aspect.question
        )
        return [
            {"role": "system", "content": self.prompts.system.format()},
            {"role": "user", "content": user},
        ]

    async def cell(self, paper_id: str, aspect: Aspect, sources: Sequence[Source]) -> Answered:
        """The model's cell from `sources`; `NOT_FOUND` without passages (the model is not
        asked); UpstreamError when the model's server fails."""
        if not sources:
            return Answered(Cell.not_found(paper_id, aspect.name), ())
        text = await self.model.complete(self.messages(aspect, sources))
        guard = CitationGuard(sources)
        kept = guard.feed(text) + guard.flush()
        plain = " ".join(_CITATION.sub("", kept).split()).strip(" ;,")
        dropped = tuple(guard.dropped)
        if not guard.citations or not plain or _DECLINES.search(plain) or plain == NOT_FOUND:
            return Answered(Cell.not_found(paper_id, aspect.name), dropped)
        cited = next(s.citation for s in sources if s.id.lower() == guard.citations[0].lower())
        return Answered(Cell(paper_id, aspect.name, plain[:MAX_CELL_CHARS], cited), dropped)
