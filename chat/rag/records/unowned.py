"""A name whose paper the library does not hold: several papers define it, none presents it
as its own ("LoRA" is Low-Rank Adaptation to hundreds of papers here, none of them the
paper that introduced it). Asked who wrote it or when it came out, the answer says so and
names the earliest paper of the library defining it, instead of one that merely uses it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ingest.index.name_catalog import NameCatalog

if TYPE_CHECKING:
    from chat.rag.names.matches import Recognised
    from ingest.index.catalog import Catalog

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


def unowned_name(names: Recognised, catalog: Catalog) -> Unowned | None:
    """The first name of the question that two or more papers define and none presents as
    its own, with the earliest of those papers; None when every name has its paper."""
    for name in names.matches:
        if name.own_papers or len(name.definers) < 2 or not name.marked:
            continue
        count, earliest = NameCatalog(catalog).definers_of(name.name)
        if earliest is not None:
            long_form = name.long_forms[0] if name.long_forms else ""
            return Unowned(name.name, count, long_form, earliest)
    return None
