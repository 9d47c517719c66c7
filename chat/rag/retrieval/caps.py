"""The caps on what one paper gives the answerer: passages per paper, and captions, tables
and footnotes per paper, with a floor under which a capped-out passage takes a place back."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from chat.rag.retrieval.fusion import Candidate
from ingest.index.records import chunk_place
from ingest.index.tables.chunks import UNIT_KINDS

# A PDF's chunks out of its body flow: captions, tables and footnotes.
EXTRA_KINDS = frozenset(UNIT_KINDS["fulltext"]) - {"fulltext"}


def cap_per_paper(
    ranked: Sequence[Candidate],
    per_paper: int,
    k: int,
    leader: int = 0,
    per_kind: int = 0,
    floor: float = 0.0,
) -> list[Candidate]:
    """The best `k` candidates with at most `per_paper` of one paper, or `leader` (when
    larger) of the first-ranked paper, whose page-level detail a question often needs;
    and, when `per_kind` is set, at most that many of one paper's captions, of its
    tables and of its footnotes, which are short and dense in the question's words and
    would otherwise take the places of the passages that explain them. A candidate the
    per-paper cap left out (a body passage, when `per_kind` is set) then takes the place
    of the weakest chosen one while that scores less than `floor` times its score; the
    list stays in ranked order."""
    chosen: list[Candidate] = []
    capped: list[Candidate] = []
    taken: Counter[str] = Counter()
    extras: Counter[tuple[str, str]] = Counter()
    first = ranked[0].paper_id if ranked else ""
    for candidate in ranked:
        kind = chunk_kind(candidate.chunk_id)
        cap = max(per_paper, leader) if candidate.paper_id == first else per_paper
        if taken[candidate.paper_id] >= cap:
            if not (per_kind and kind in EXTRA_KINDS):
                capped.append(candidate)
            continue
        extra = (candidate.paper_id, kind)
        if per_kind and kind in EXTRA_KINDS:
            if extras[extra] >= per_kind:
                continue
            extras[extra] += 1
        taken[candidate.paper_id] += 1
        chosen.append(candidate)
        if len(chosen) == k:
            break
    return _raise_capped(chosen, capped, floor, ranked)


def _raise_capped(
    chosen: list[Candidate], capped: list[Candidate], floor: float, ranked: Sequence[Candidate]
) -> list[Candidate]:
    """`chosen` with capped-out candidates (best first) in the places of chosen ones
    scoring under `floor` times theirs, weakest first; in the order of `ranked`."""
    if not floor or not capped or not chosen:
        return chosen
    kept = list(chosen)
    for candidate in capped:
        weakest = min(range(len(kept)), key=lambda i: kept[i].score)
        if kept[weakest].score >= floor * candidate.score:
            break
        kept[weakest] = candidate
    if kept == chosen:
        return chosen
    place = {c.chunk_id: i for i, c in enumerate(ranked)}
    return sorted(kept, key=lambda c: place[c.chunk_id])


def chunk_kind(chunk_id: str) -> str:
    """A chunk's kind, read from its id (`chunk_place`); "" when it has none."""
    place = chunk_place(chunk_id)
    return place[0] if place else ""
