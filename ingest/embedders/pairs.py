"""Training pairs the library gives, each a text and the passage it is about (`mine_pairs`):

- a paper's title and its abstract;
- a section's heading and its passages (headings that say what the section
  is about, not "Introduction");
- a figure's or table's caption and the passage that cites it ("Figure 3");
- a name's long form and the abstract sentence that defines it
  ("cone-beam computed tomography (CBCT) ...");
- the sentence that cites a reference ("... as in [12]") and the abstract of
  that reference, when it is a paper of the library.

Each pair a training step reaches gets a hard negative: the best BM25 passage
for its first text from another paper (`hard_negative`), looked up as training
goes, so a large library costs no search for pairs a time budget never reaches.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ingest.index.catalog import Catalog
    from ingest.index.lexical.bm25 import LexicalIndex


PAIR_KINDS = ("title", "section", "caption", "name", "citation")
# Headings that name a part of every paper rather than what this one is about.
GENERIC_HEADINGS = frozenset(
    (
        "abstract", "introduction", "background", "related", "work", "works", "preliminaries",
        "method", "methods", "methodology", "approach", "experiments", "experiment",
        "experimental", "setup", "results", "discussion", "conclusion", "conclusions",
        "future", "limitations", "acknowledgments", "acknowledgements", "references",
        "appendix", "evaluation", "analysis", "overview", "summary", "and", "the", "of",
    )
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
_FIGURE = re.compile(r"^\s*(fig(?:ure)?|table)\.?\s*(\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class Pair:
    anchor: str  # what a searcher might write: a title, a heading, a long form
    positive: str  # the passage it is about
    kind: str  # one of PAIR_KINDS
    paper_id: str  # the paper of the positive


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _meaningful_heading(section: str) -> str:
    """The heading without its number, or "" for one every paper has."""
    heading = re.sub(r"^[\dIVX.\s]+", "", section).strip()
    words = heading.lower().split()
    if len(words) < 2 or set(words) <= GENERIC_HEADINGS:
        return ""
    return heading


def mine_pairs(catalog: Catalog, excluded: set[str], per_kind: int, seed: int) -> list[Pair]:
    """Every pair the library gives (see the module's docstring), none from an `excluded`
    paper; at most `per_kind` of one kind, chosen by `seed`."""
    found: dict[str, list[Pair]] = {kind: [] for kind in PAIR_KINDS}
    abstracts: dict[str, str] = {}
    for paper_id, title, abstract in catalog.db.execute("SELECT id, title, abstract FROM papers"):
        if paper_id in excluded or not abstract:
            continue
        abstracts[paper_id] = abstract
        if title:
            found["title"].append(Pair(title, abstract, "title", paper_id))
    body: dict[str, list[tuple[str, str, str]]] = {}
    rows = catalog.db.execute(
        "SELECT paper_id, kind, section, text FROM chunks WHERE kind <> 'abstract' "
        "ORDER BY paper_id, number"
    )
    for paper_id, kind, section, text in rows:
        if paper_id not in excluded:
            body.setdefault(paper_id, []).append((kind, section or "", text))
    for paper_id, chunks in body.items():
        found["section"] += _section_pairs(paper_id, chunks)
        found["caption"] += _caption_pairs(paper_id, chunks)
    names = catalog.db.execute(
        "SELECT paper_id, name, long_form FROM names WHERE long_form IS NOT NULL "
        "AND long_form <> ''"
    )
    for paper_id, name, long_form in names:
        if paper_id in abstracts:
            sentence = next((s for s in _sentences(abstracts[paper_id]) if name in s), "")
            if sentence and long_form.lower() in sentence.lower():
                found["name"].append(Pair(long_form, sentence, "name", paper_id))
    found["citation"] = _citation_pairs(catalog, body, abstracts, excluded)
    chooser = random.Random(seed)
    pairs = []
    for kind in PAIR_KINDS:
        unique = list({(p.anchor, p.positive): p for p in found[kind]}.values())
        if len(unique) > per_kind:
            unique = chooser.sample(unique, per_kind)
        pairs += unique
    return pairs


def _section_pairs(paper_id: str, chunks: Sequence[tuple[str, str, str]]) -> list[Pair]:
    pairs = []
    seen: set[str] = set()
    for kind, section, text in chunks:
        heading = _meaningful_heading(section)
        if kind == "fulltext" and heading and heading not in seen:
            seen.add(heading)  # a section's first passage says what it is about
            pairs.append(Pair(heading, text, "section", paper_id))
    return pairs


def _caption_pairs(paper_id: str, chunks: Sequence[tuple[str, str, str]]) -> list[Pair]:
    pairs = []
    passages = [text for kind, _, text in chunks if kind == "fulltext"]
    for kind, _, text in chunks:
        label = _FIGURE.match(text) if kind != "fulltext" else None
        if label is None:
            continue
        word = "table" if label.group(1).lower() == "table" else "fig"
        cited = re.compile(rf"\b{word}(?:ure)?\.?\s*{label.group(2)}\b", re.IGNORECASE)
        citing = next((p for p in passages if cited.search(p) and p != text), None)
        if citing is not None:
            pairs.append(Pair(text, citing, "caption", paper_id))
    return pairs


def _citation_pairs(
    catalog: Catalog,
    body: dict[str, list[tuple[str, str, str]]],
    abstracts: dict[str, str],
    excluded: set[str],
) -> list[Pair]:
    """The sentence citing a numbered reference ("[12]") that is a paper of the library,
    with that paper's abstract."""
    pairs = []
    rows = catalog.db.execute(
        "SELECT paper_id, position, arxiv_id FROM paper_references WHERE arxiv_id IS NOT NULL "
        "AND arxiv_id <> ''"
    )
    for paper_id, position, arxiv_id in rows:
        cited = catalog.resolve_id(arxiv_id)
        if paper_id not in body or cited is None or cited in excluded or cited not in abstracts:
            continue
        marker = re.compile(rf"\[[^\]]*\b{int(position) + 1}\b[^\]]*\]")
        for _, _, text in body[paper_id]:
            sentence = next((s for s in _sentences(text) if marker.search(s)), None)
            if sentence is not None:
                pairs.append(Pair(sentence, abstracts[cited], "citation", cited))
                break
    return pairs


def hard_negative(
    pair: Pair, lexical: LexicalIndex, catalog: Catalog, excluded: set[str]
) -> str | None:
    """The best BM25 passage for the pair's anchor from another paper (not an excluded
    one); None when BM25 finds none."""
    hits = lexical.search(pair.anchor, 5, fix_typos=False)
    other = next((c for c, p, _ in hits if p != pair.paper_id and p not in excluded), None)
    if other is None:
        return None
    row = catalog.chunk_rows([other]).get(other)
    return row.text if row is not None else None
