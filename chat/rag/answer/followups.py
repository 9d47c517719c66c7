"""A follow-up that leans on the previous answer is asked about that answer's papers.

"What is RETRO?", then "and how big is its database?": the second question
names nothing; its "its" is the paper the first answer was about. Joined as
words, the two questions find whatever else says "database". So a question
that refers back ("it", "its", "they", "this paper", "and ...?", "what
about ...?") and names no paper of its own is searched within the papers
the previous answer cited: the first it cited ("it", "its", "the model"),
or up to `MAX_CARRIED` in the order first cited for a question that points
back at several ("both", "these papers", or "they" after a question about
several). A paper whose quoted sentences print a name the previous question
asked about ("ViT-Huge") comes before those that print none: an answer that
opened with a passage about something else is not what the user asked about.
"The second one" after a question that named several ("What are RAG and
REALM?") is the paper of its second name: the cited paper whose quoted
sentences print that name and none of the others; none when no such paper
was cited. A follow-up that names another paper's own name ("and what about RAG?" after
an answer about REALM, whose paper never prints "RAG") is not carried over: it
asks about that paper, and is searched over the library. The scope is never
silent: the `sources` event says which papers were carried over (the dock
shows them as a chip the reader removes to ask again without it), and a
caller turns it off with `follow_up: false`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chat.rag.citations.guard import CITATION_PATTERN
from chat.rag.retrieval.retriever import ids_in_question
from chat.rag.retrieval.vocabulary import asked_names
from ingest.index.filters import Filters
from ingest.index.records import normalise_paper_id

# The most papers a follow-up is carried over to: an answer cites its subject first; "it"
# is that one paper, "they" or "both" up to this many.
MAX_CARRIED = 2
# A paper cited this share as often as the most cited one, or less, is no subject of it.
_MIN_CITED_SHARE = 0.5

# Words by which a question points back at what the previous answer was about. "That" only
# with a noun: "shows that" is no reference.
_REFERS_BACK = re.compile(
    r"\b(?:it|its|it's|itself|they|them|their|theirs|he|she|his|her"
    r"|(?:this|that|these|those|the same) (?:paper|papers|model|models|method|methods"
    r"|approach|system|work|architecture|dataset|benchmark|technique|one|algorithm)"
    r"|the (?:paper|model|method|approach|authors?|architecture|system|algorithm)"
    r"|the (?:\w+ )?ones?)\b",
    re.IGNORECASE,
)
# Words that point back at more than one thing.
_PLURAL = re.compile(
    r"\b(?:these|those|both|each|either|compare|papers|models|methods)\b", re.IGNORECASE
)
# "They" points back at several things only after a question about several ("What are
# RAG and REALM?"); after one about one paper it is its authors ("the model they
# fine-tune").
_THEY = re.compile(r"\b(?:they|them|their|theirs)\b", re.IGNORECASE)
_SEVERAL = re.compile(r"\b(?:and|or|both|versus|vs\.?|compare|between)\b", re.IGNORECASE)
# An elliptical follow-up: it opens as the continuation of the previous question.
_CONTINUES = re.compile(r"^\s*(?:and|also|but|so|then|what about|how about|and what)\b", re.I)
_CITED = re.compile(CITATION_PATTERN)
# "The second one", "the latter model": one of the several things the previous question
# named, by its place there.
_ORDINAL = re.compile(
    r"\bthe (first|second|third|former|latter|last) (?:one|paper|model|method|approach"
    r"|system|work|dataset|benchmark|algorithm)\b",
    re.IGNORECASE,
)
_PLACES = {"first": 0, "former": 0, "second": 1, "third": 2, "latter": -1, "last": -1}


@dataclass(frozen=True)
class Carried:
    """The papers a follow-up is asked about, carried over from the previous answer."""

    paper_ids: tuple[str, ...]
    titles: tuple[str, ...] = ()  # each paper's title, for the reader to see the scope by

    def data(self) -> dict[str, object]:
        return {"paper_ids": list(self.paper_ids), "titles": list(self.titles), "carried": True}


def refers_back(question: str) -> bool:
    """Whether a question leans on the previous one: a pronoun or a definite reference to
    what was asked about, or an opening that continues it ("and how ...?")."""
    return bool(_REFERS_BACK.search(question) or _CONTINUES.search(question))


def cited_papers(answer: str, asked: str = "") -> list[str]:
    """The papers an answer's text cites, in the order first cited: the first (an answer
    leads with what it is about), then those cited more than half as often as the most
    cited one (a passing mention is not what the answer is about). When `asked` (the
    question it answered) names something, the papers whose cited sentences print one of
    its names come first, however often and late they are cited."""
    said = _said(answer)
    if not said:
        return []
    counts = {paper: len(sentences) for paper, sentences in said.items()}
    most = max(counts.values())
    first = next(iter(counts))
    kept = [p for p, n in counts.items() if p == first or n > _MIN_CITED_SHARE * most]
    names = asked_names(asked)
    printing = [p for p in said if any(_prints(" ".join(said[p]), name) for name in names)]
    if not printing or first in printing:
        return kept
    return [*printing, *(p for p in kept if p not in printing)]


def _said(answer: str) -> dict[str, list[str]]:
    """What an answer says citing each paper: the text before each of its citations, back
    to the citation before it; in the order the papers are first cited."""
    said: dict[str, list[str]] = {}
    start = 0
    for match in _CITED.finditer(answer):
        said.setdefault(normalise_paper_id(match.group(2)), []).append(
            answer[start : match.start()]
        )
        start = match.end()
    return said


def ordinal_paper(question: str, asked: str, answer: str) -> str | None:
    """The paper "the second one" (the first, third, former, latter, last) of `question`
    points at when `asked`, the previous question, named several things: the paper
    `answer` cites for sentences that print the name in that place and none of the others
    ("" when it cites none such); None when the question points at none by its place."""
    match = _ORDINAL.search(question)
    names = asked_names(asked)
    if match is None or len(names) < 2:
        return None
    place = _PLACES[match.group(1).lower()]
    if place >= len(names):
        return None
    wanted, others = names[place], [n for n in names if n != names[place]]
    for paper, sentences in _said(answer).items():
        text = " ".join(sentences)
        if _prints(text, wanted) and not any(_prints(text, other) for other in others):
            return paper
    return ""


def _prints(text: str, name: str) -> bool:
    """Whether `text` prints `name` as a word of its own ("ViT-Huge", not "RePa-ViT-Huge")."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-]|\.\w)", text) is not None


def carried_scope(
    question: str,
    history: Sequence[tuple[str, str]],
    filters: Filters,
    title: Callable[[str], str | None],
    names_another: Callable[[str, Sequence[str]], bool] | None = None,
) -> Carried | None:
    """The previous answer's papers when `question` leans on it and is not scoped already
    (by the caller, or by an id it writes); `title` gives a paper's title, None for a paper
    the index does not hold (a citation a client made up in its history carries nothing).
    `names_another` tells whether the question names a paper other than those it would be
    carried to (`chat.rag.retrieval.retriever.Retriever.names_another`): then none is."""
    if filters.searched_papers or filters.author or ids_in_question(question):
        return None
    if not refers_back(question):
        return None
    answers = [content for role, content in history if role == "assistant"]
    if not answers:
        return None
    asked = [content for role, content in history if role == "user"]
    placed = ordinal_paper(question, asked[-1] if asked else "", answers[-1])
    if placed is not None:
        # "the second one": that one's paper alone, or none when the answer cited it not.
        papers = [(placed, t)] if placed and (t := title(placed)) is not None else []
        return Carried((papers[0][0],), (papers[0][1],)) if papers else None
    cited = cited_papers(answers[-1], asked[-1] if asked else "")
    papers = [(p, t) for p in cited if (t := title(p)) is not None]
    several = bool(_THEY.search(question)) and (not asked or bool(_SEVERAL.search(asked[-1])))
    kept = papers[: MAX_CARRIED if several or _PLURAL.search(question) else 1]
    if not kept or (names_another and names_another(question, [p for p, _ in kept])):
        return None
    return Carried(tuple(p for p, _ in kept), tuple(t for _, t in kept))
