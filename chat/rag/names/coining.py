"""Which paper coined a name, where the mining of each paper alone cannot tell.

Mining reads one paper at a time: "we propose Low-Rank Adaptation (LoRA) patching" reads
as a paper presenting LoRA as its own, and Dense Passage Retrieval, which defines "DPR"
in its text without presenting it in its abstract, reads as one paper among hundreds
defining it. The library as a whole tells: the dates of all the papers defining the name
and the reference lists citing them. Both answers are read once per name while the
catalog stays as it is (`chat/rag/names/recognition.py` keeps them).
"""

from __future__ import annotations

from chat.rag.names.matches import NameMatch
from ingest.index.name_catalog import NameCatalog
from ingest.index.names.citations import citing_ids
from ingest.index.names.mining import INTRODUCED, fold

# An older paper defining a name is read as its coiner when the library's reference lists
# cite it this often or more, among the oldest few of them.
COINER_CITED = 1
COINERS_READ = 5
# A paper presenting as its own a long form that this many papers of the library had
# defined before it did not coin the name.
EARLIER_DEFINERS = 3


def cited_coiner(names: NameCatalog, match: NameMatch) -> str | None:
    """A paper defining the name before any of its introducers that the library's reference
    lists cite (`COINER_CITED` times at least, the most cited of the oldest
    `COINERS_READ`); None when there is none."""
    # Papers defining it in the other number count too: the ResNet paper defines
    # "residual nets (ResNets)", 2025 papers "Residual Network (ResNet)".
    name = match.name
    forms = [name[:-1] if name.endswith("s") else f"{name}s"]
    plural = names.rows_for(forms, [f.lower() for f in forms], defined_only=True)
    defining = [*match.definers, *(r.paper_id for r in plural if r.defined)]
    others = [p for p in dict.fromkeys(defining) if p not in match.introducers]
    if not others:
        return None
    catalog = names.catalog
    dates = catalog.published_among([*match.introducers, *others])
    first = min((dates.get(p) or "9" for p in match.introducers), default="9")
    older = sorted((p for p in others if dates.get(p) and dates[p] < first), key=dates.__getitem__)
    cited = {p: len(citing_ids(catalog.db, p)) for p in older[:COINERS_READ]}
    best = max(cited, key=lambda p: (cited[p], -older.index(p)), default=None)
    if best is None or cited[best] < COINER_CITED:
        return None
    return best


def late_introducers(names: NameCatalog, match: NameMatch) -> frozenset[str]:
    """The introducers of `match` that present as their own a long form of the name which
    `EARLIER_DEFINERS` or more papers of the library had defined before them. A paper
    that names itself so in its title, or in words ("we call it ..."), is never one."""
    rows = names.rows_for([match.name], defined_only=True)
    named = {r.paper_id for r in rows if r.defined == INTRODUCED and not r.long_form}
    presented = {
        r.paper_id: fold(r.long_form)
        for r in rows
        if r.defined == INTRODUCED
        and r.long_form
        and r.paper_id in match.introducers
        and r.paper_id not in named
    }
    if not presented:
        return frozenset()
    definers: dict[str, set[str]] = {}
    for row in rows:
        if row.long_form:
            definers.setdefault(fold(row.long_form), set()).add(row.paper_id)
    wanted = {p for form in presented.values() for p in definers[form]}
    dates = names.catalog.published_among(sorted(wanted))
    late = set()
    for paper, form in presented.items():
        own = dates.get(paper) or ""
        earlier = [p for p in definers[form] if "" < (dates.get(p) or "") < own]
        if len(earlier) >= EARLIER_DEFINERS:
            late.add(paper)
    return frozenset(late)
