"""A name whose paper the library does not hold: several papers define it, none presents it
as its own ("LoRA" is Low-Rank Adaptation to hundreds of papers here, none of them the
paper that introduced it). Asked who wrote it or when it came out, the answer says so and
names the earliest paper of the library defining it, instead of one that merely uses it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ingest.index.name_catalog import NameCatalog

if TYPE_CHECKING:
    from chat.rag.names.matches import Recognised
    from ingest.index.catalog import Catalog

# The name right after the question's asking words, perhaps as "the paper that introduced"
# it or "the <name> paper", and nothing after it but words of publishing.
_ASKING_FOR_PAPER = (
    r"\b(?:who\s+(?:wrote|authored|are\s+the\s+authors\s+of|were\s+the\s+authors\s+of)"
    r"|authors?\s+of|when\s+(?:was|were|did))\s+(?:the\s+)?"
    r"(?:(?:first\s+)?(?:paper|work|article)s?\s+(?:that|which|to)\s+"
    r"(?:first\s+)?(?:introduced?|proposed?|presented?|defined?)\s+(?:the\s+)?)?"
    r"{name}(?:\s+(?:paper|model|method|algorithm|architecture|framework)s?)?"
    r"(?:\s+(?:first\s+)?(?:published|introduced|proposed|released|submitted|written"
    r"|come\s+out|appear))?\s*[?.!]*$"
)
# The opening of the record text of such a name (`chat/rag/records/answers.py` quotes it whole).
OPENING = "No paper of the library presents "


@dataclass(frozen=True)
class Unowned:
    name: str  # as the papers print it
    definers: int  # the papers defining it
    long_form: str  # the commonest (papers may mean other things by it), "" when none
    earliest: str  # the earliest paper defining it

    def statement(self) -> str:
        """What the library says of the name, in one sentence."""
        meaning = f" (most often as \u201c{self.long_form}\u201d)" if self.long_form else ""
        return (
            f"{OPENING}{self.name} as its own: {self.definers} of its papers define it"
            f"{meaning}, none as its own name, so the paper that introduced it is not in the"
            " library."
        )


def unowned_name(question: str, names: Recognised, catalog: Catalog) -> Unowned | None:
    """The first name the question asks for the paper of (`_asks_for_paper_of`) that two or
    more papers define and none presents as its own, with the earliest of those papers;
    None when every such name has its paper."""
    for name in names.matches:
        if name.own_papers or len(name.definers) < 2 or not name.marked:
            continue
        if not _asks_for_paper_of(question, {name.asked, name.written, name.name}):
            continue
        count, earliest = NameCatalog(catalog).definers_of(name.name)
        if earliest is not None:
            long_form = name.long_forms[0] if name.long_forms else ""
            return Unowned(name.name, count, long_form, earliest)
    return None


def _asks_for_paper_of(question: str, forms: set[str]) -> bool:
    """Whether the question asks who wrote or when came out the name's own paper ("Who wrote
    the paper that introduced LoRA?", "When was RLHF published?", "the authors of PPO"),
    not another paper about it ("Who wrote a survey of large language models?")."""
    for form in (f for f in forms if f):
        pattern = _ASKING_FOR_PAPER.format(name=re.escape(form))
        if re.search(pattern, question.strip(), re.IGNORECASE):
            return True
    return False
