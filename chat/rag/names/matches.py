"""What a name recognised in a question is: the catalog's rows for it made into one match,
with its long forms, the papers introducing and defining it, and whether it is ambiguous."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

from chat.rag.extractive.question import frame_weight
from chat.rag.names.config import NamesConfig
from chat.rag.retrieval.vocabulary import english_zipf
from ingest.index.lexical.analysis import terms
from ingest.index.lexical.bm25 import inverse_document_frequency
from ingest.index.name_catalog import NameRow
from ingest.index.names.mining import INTRODUCED, fold, is_name_like, singular


@dataclass(frozen=True)
class NameMatch:
    name: str  # as the papers print it
    asked: str  # as the question writes it
    long_forms: tuple[str, ...]  # the commonest first
    definers: tuple[str, ...]  # papers that define it, the most explicit first
    users: int = 0  # papers that print it without defining it
    # Its form alone says it is a name: mixed case ("ZeRO", "FiD") or letters that are
    # no common English word ("GPT"); capitals that spell one ("NYC", "TV") are not.
    marked: bool = True
    # Papers that introduce it, or its long form, as their own.
    introducers: tuple[str, ...] = ()
    # The long form as the question spells it out, when that is how it was found.
    written: str = ""
    # The name as the question types it in separate words ("flash attention"), when that
    # is how it was found: the papers' passages print it joined ("FlashAttention").
    apart: str = ""
    # Its definers mean different things by it, none most of them ("LRC": Low-Rank Clone,
    # Local Response Cleaning, ...): the question's other words must decide.
    ambiguous: bool = False

    @property
    def own_papers(self) -> tuple[str, ...]:
        """The papers the name is the own name of: those that introduce it, else the one
        paper that defines it ("dense passage retriever (DPR)", defined by DPR's paper
        alone); () when several define it and none introduces it."""
        return self.introducers or (self.definers if len(self.definers) == 1 else ())

    @property
    def specific(self) -> bool:
        """Defined by a paper and marked as a name: the question names something the
        index explains."""
        return bool(self.definers) and self.marked


@dataclass(frozen=True)
class Recognised:
    matches: tuple[NameMatch, ...] = ()
    boosted: frozenset[str] = field(default_factory=frozenset)  # papers to boost
    # The papers each match would boost (its introducers, else few enough definers).
    boosting: tuple[tuple[NameMatch, tuple[str, ...]], ...] = ()
    papers_in_index: int = 0

    def share(self, match: NameMatch, idf: Mapping[str, float]) -> float:
        """The name's share of the question's term weight (`idf`, framing words such as
        "problem" or "stand" counting less), the name weighing as rare as the papers
        printing it in its own case make it: "ZeRO" weighs as the few papers that print
        "ZeRO", not as the many that print "zero"."""
        own = {t for t in terms(match.written or match.asked) if t in idf}
        stems = sum(idf[t] for t in own)
        printing = len(match.definers) + match.users
        weight = max(stems, inverse_document_frequency(printing, self.papers_in_index))
        rest = sum(value * frame_weight(t) for t, value in idf.items() if t not in own)
        total = rest + weight
        return weight / total if total > 0 else 0.0

    def steering(self, idf: Mapping[str, float], min_share: float, max_definers: int) -> Recognised:
        """These names without those holding under `min_share` of the question's term
        weight, defined by more than `max_definers` papers, or meaning different things
        to their definers: the names the question is about and that name something
        particular, which expand and boost its search."""
        kept = tuple(
            m
            for m in self.matches
            if self.share(m, idf) >= min_share
            and len(m.definers) <= max_definers
            and not m.ambiguous
        )
        if len(kept) == len(self.matches):
            return self
        boosting = tuple((m, papers) for m, papers in self.boosting if m in kept)
        boosted = frozenset(p for _, papers in boosting for p in papers)
        return replace(self, matches=kept, boosting=boosting, boosted=boosted)

    @property
    def defined(self) -> bool:
        return any(m.specific for m in self.matches)

    def long_forms(self) -> list[str]:
        return list(dict.fromkeys(f for m in self.matches for f in m.long_forms))

    def search_forms(self) -> list[str]:
        """What both retrievers search for beside the question: the names' long forms, and
        the names the question types apart, joined as the papers print them."""
        joined = [m.name for m in self.matches if m.apart]
        return list(dict.fromkeys([*self.long_forms(), *joined]))

    def cased(self) -> dict[str, str]:
        """The index terms of the names the question writes in their printed, mixed case
        ("FiD", "ZeRO"), each with its name: a passage holds such a term only where it
        prints the name so ("FID" is another thing, stemmed alike)."""
        return {
            term: m.name
            for m in self.matches
            if singular(m.asked) == singular(m.name) and case_carries_meaning(m.name)
            for term in terms(m.name)
        }

    def long_forms_by_term(self) -> dict[str, tuple[str, ...]]:
        """The index terms of the names, each with the names' long forms: a passage that
        writes "Fusion-in-Decoder" holds FiD though it never prints the name."""
        by_term: dict[str, tuple[str, ...]] = {}
        for m in self.matches:
            for term in terms(m.name) if m.long_forms else ():
                by_term[term] = tuple(dict.fromkeys((*by_term.get(term, ()), *m.long_forms)))
            # The words typed apart are held by a passage that prints the name joined.
            for term in terms(m.apart):
                by_term[term] = tuple(dict.fromkeys((*by_term.get(term, ()), m.name)))
        return by_term

    def expanded(self, question: str) -> str:
        """The question with its names' long forms after it, for the dense retriever."""
        extra = [f for f in self.search_forms() if fold(f) not in fold(question)]
        return f"{question} ({'; '.join(extra)})" if extra else question


def named_phrases(question: str, asked: Sequence[str]) -> list[str]:
    """A name of the question with the capitalised word after it, as a paper's title may
    name a method of its own ("CAV-MAE Sync: Improving ..." beside the CAV-MAE it builds
    on): looked up as one name, exactly."""
    words = [w.strip(",.;:!?()\"'") for w in question.split()]
    return list(
        dict.fromkeys(
            f"{first} {second}"
            for first, second in pairwise(words)
            if first in asked and second[:1].isupper()
        )
    )


def case_carries_meaning(name: str) -> bool:
    """Mixed case past the first letter ("FiD", "ZeRO", "FlashAttention"): the case tells
    the name from a word or another acronym; "BERT" and "Adam" are printed otherwise too."""
    return any(c.isupper() for c in name[1:]) and any(c.islower() for c in name)


def accepts(row: NameRow, asked: str, first: bool, config: NamesConfig) -> bool:
    if singular(row.name) == singular(asked):
        if is_name_like(row.name):
            return True
        # A capitalised word: a name only where a sentence does not capitalise it anyway.
        return bool(row.defined) and not first and asked[:1].isupper()
    if _small_capitals(row, asked):
        return True
    # Another case matches only a question in lower case ("fid"): "FiD" is not "FID".
    return (
        asked.islower()
        and is_name_like(row.name)
        and english_zipf(row.name.lower()) <= config.max_folded_zipf
    )


def _small_capitals(row: NameRow, asked: str) -> bool:
    """A name in capitals asked of a capitalised name that a long form defines: how a name
    set in small capitals is typed ("RETRO" for "Retrieval-Enhanced Transformer (Retro)")."""
    name = row.name
    return (
        bool(row.defined and row.long_form)
        and asked.isupper()
        and len(asked) >= 3
        and name[:1].isupper()
        and name[1:].islower()
        and asked == name.upper()
    )


def _source_rank(source: str) -> int:
    return {"title": 0, "abstract": 1, "fulltext": 2}.get(source, 3)


def match_of(name: str, asked: str, rows: Sequence[NameRow], config: NamesConfig) -> NameMatch:
    """The match of `name` from its defining `rows`; the papers that print it undefined
    are counted apart (`NameCatalog.users_of`)."""
    defining = sorted(
        (r for r in rows if r.defined), key=lambda r: (-r.defined, _source_rank(r.source), -r.count)
    )
    definers = tuple(dict.fromkeys(r.paper_id for r in defining))
    printed: dict[str, Counter[str]] = {}
    for row in defining:
        if row.long_form:
            printed.setdefault(fold(row.long_form), Counter())[row.long_form] += 1
    by_papers = sorted(printed.values(), key=lambda c: -sum(c.values()))
    forms = tuple(c.most_common(1)[0][0] for c in by_papers[: config.long_forms])
    plain = name.isupper() or (name[:1].isupper() and name[1:].islower())
    marked = not plain or english_zipf(name.lower()) <= config.max_folded_zipf
    introducers = tuple(dict.fromkeys(r.paper_id for r in defining if r.defined == INTRODUCED))
    return NameMatch(
        name,
        asked,
        forms,
        definers,
        marked=marked,
        introducers=introducers,
        ambiguous=is_ambiguous(defining),
    )


# The share of a name's defining papers that one meaning must hold for the name to be
# that meaning's.
_MOST_MEANING = 2 / 3


def is_ambiguous(rows: Sequence[NameRow]) -> bool:
    """Whether the papers defining a name with long forms (`rows`) mean different things
    by it, no meaning held by two thirds of them: long forms that share half their words
    are one meaning ("Dense Passage Retriever", "Dense Passage Retrieval")."""
    meanings: list[tuple[set[str], set[str]]] = []  # (words, papers)
    for row in rows:
        words = set(terms(row.long_form))
        if not words:
            continue
        for held, papers in meanings:
            if 2 * len(words & held) >= min(len(words), len(held)):
                held |= words
                papers.add(row.paper_id)
                break
        else:
            meanings.append((words, {row.paper_id}))
    if len(meanings) < 2:
        return False
    papers = {p for _, held in meanings for p in held}
    return max(len(held) for _, held in meanings) < _MOST_MEANING * len(papers)
