"""Names in a question: recognised against the index's own catalog of names.

A question's tokens are looked up in the catalog's `names` table
(`ingest/index/name_catalog.py`), case-sensitively: "ZeRO" is the optimizer,
"zero" the number. A token in another case still matches a name when the
name is marked by its case and its lower-case form is rare in English
("fid" finds FiD, "flashattention" FlashAttention; "zero" never finds
ZeRO). A plain capitalised name from a title ("Adam: ...") matches only
where it is capitalised inside the question, not as its first word. A long
form written out ("Fusion-in-Decoder") finds its name too, and so does a name
with the capitalised word after it that a title gives as one ("CAV-MAE Sync").

A recognised name brings its long forms (the commonest first), which both
retrievers search for beside the question, and the papers it is about,
whose passages get a boost measured with `bench/names.py`: those that
introduce it or its long form as their own, else (a name few papers define)
those that define it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

from chat.rag.bounds import check_bounds, described
from chat.rag.extractive.question import frame_weight
from chat.rag.names.printing import Passages, apart_printings, printings_in, spells, typed_apart
from chat.rag.retrieval.fusion import Candidate, Hit
from chat.rag.retrieval.vocabulary import english_zipf
from ingest.index.analysis import terms
from ingest.index.lexical import inverse_document_frequency
from ingest.index.name_catalog import (
    INTRODUCED,
    NameCatalog,
    NameRow,
    fold,
    is_name_like,
    number_forms,
    singular,
    tokens,
)

# The share of a question a defined name in capitals that spell an English word ("MARE")
# must hold to count: the default of both `NamesConfig.plain_share` (its terms are
# scholarly) and `RelevancePolicy.plain_name_share` (its question is answered).
PLAIN_NAME_SHARE = 0.75


@dataclass(frozen=True)
class NamesConfig:
    """Names the papers define, in the question (`PAPERCHAT_RETRIEVAL__NAMES__*`). Measured
    with `python -m bench.names` and `bench.retrieval` (README)."""

    boost: float = field(
        default=1.0,
        metadata=described(
            "added to the (rescaled, 0 to about 2) score of each passage of a paper that "
            "defines a name in the question, scaled down for a name holding less than "
            "`about_share` of the question's term weight; 0 turns it off",
            at_least=0,
        ),
    )
    about_share: float = field(
        default=0.4,
        metadata=described(
            "from this share of the question's term weight on, the question is about the "
            "name and its papers get the whole boost; below it, a part",
            at_least=0.01,
        ),
    )
    # Against `about_share` 0.3 and no floor, this lifted questions-hard hybrid R@1
    # 0.753 -> 0.780 on the development index (README).
    min_share: float = field(
        default=0.2,
        metadata=described(
            'below this share the name is one topic among several ("India-focused VQA, OCR, '
            'translation eval"): it neither expands the question nor boosts; between it and '
            "`about_share` the boost grows",
            at_least=0,
        ),
    )
    plain_share: float = field(
        default=PLAIN_NAME_SHARE,
        metadata=described(
            'a defined name in capitals that spell an English word ("MARE") counts among '
            "the question's scholarly terms only from this share of it on (the relevance "
            "policy answers such a question from `PAPERCHAT_RELEVANCE__PLAIN_NAME_SHARE`)",
            at_least=0,
        ),
    )
    # BERT has 38 definers over the full index, FiD 1, DPR 6.
    max_steering_definers: int = field(
        default=20,
        metadata=described(
            'a name defined by more papers than this is everyone\'s ("MAE", "RL", '
            '"RAG"): it neither expands the question nor boosts',
            at_least=0,
        ),
    )
    max_definers: int = field(
        default=5,
        metadata=described(
            'a name defined by more papers than this is a common acronym ("LLMs"): its long '
            "form still expands the question, but no paper is boosted for it",
            at_least=0,
        ),
    )
    max_folded_zipf: float = field(
        default=3.0,
        metadata=described(
            "a token in another case matches a case-marked name only when the name's lower "
            'case is this rare in English (zipf scale): "fid" 2.3 matches, "zero" 4.6 not'
        ),
    )
    long_forms: int = field(
        default=2,
        metadata=described("long forms of one name added to the question", at_least=0),
    )
    long_form_weight: float = field(
        default=0.7,
        metadata=described(
            "weight of the long forms' terms in BM25, against 1 for the question's own",
            at_least=0,
        ),
    )
    max_long_form_words: int = field(
        default=8,
        metadata=described(
            "longest written-out long form looked for in a question, in words", at_least=1
        ),
    )
    printing_sample: int = field(
        default=200,
        metadata=described(
            "passages (the words' best BM25 ones) read to tell how the papers print a "
            'question\'s words: a lower-case word as a word or a name ("eval" or EVAL), '
            'words typed apart as words or one name ("flash attention" or FlashAttention)',
            at_least=1,
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)


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


def _accepts(row: NameRow, asked: str, first: bool, config: NamesConfig) -> bool:
    if singular(row.name) == singular(asked):
        if is_name_like(row.name):
            return True
        # A capitalised word: a name only where a sentence does not capitalise it anyway.
        return bool(row.defined) and not first and asked[:1].isupper()
    # Another case matches only a question in lower case ("fid"): "FiD" is not "FID".
    return (
        asked.islower()
        and is_name_like(row.name)
        and english_zipf(row.name.lower()) <= config.max_folded_zipf
    )


def _source_rank(source: str) -> int:
    return {"title": 0, "abstract": 1, "fulltext": 2}.get(source, 3)


def _match(name: str, asked: str, rows: Sequence[NameRow], config: NamesConfig) -> NameMatch:
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


class NameRecogniser:
    def __init__(
        self,
        names: NameCatalog,
        config: NamesConfig | None = None,
        passages: Passages | None = None,
    ) -> None:
        """`passages` finds the index's best passages for a query, from which how the
        papers print a question's words is read (`chat/rag/names/printing.py`). Without it a
        word in lower case matches a name in another case on the name's English rarity
        alone, and words typed apart are never read as a joined name."""
        self.names = names
        self.config = config or NamesConfig()
        self.passages = passages

    def recognise(self, question: str) -> Recognised:
        config = self.config
        asked = tokens(question)
        if not asked:
            return Recognised()
        phrases = named_phrases(question, asked)
        rows = self.names.rows_for(
            [*asked, *phrases], [t.lower() for t in asked], defined_only=True
        )
        by_name: dict[str, list[NameRow]] = {}
        for row in rows:
            by_name.setdefault(row.name, []).append(row)
        # A name no paper defines in the number asked, in the other: "What are LRCs?" finds
        # the papers defining "LRC". A name defined as asked is that name alone: "CGs",
        # defined once, is not lost among the 27 papers defining "CG", nor "PIE" among
        # the paper defining "PIEs".
        others = [f for t in asked if t not in by_name for f in number_forms(t)[1:]]
        for row in self.names.rows_for(others, [f.lower() for f in others], defined_only=True):
            if row not in by_name.get(row.name, []):
                by_name.setdefault(row.name, []).append(row)
        matches: dict[str, NameMatch] = {}
        for position, token in enumerate(asked):
            candidates = {
                name: found
                for name, found in by_name.items()
                if singular(name).lower() == singular(token).lower()
                and name not in matches
                and any(_accepts(r, token, position == 0, config) for r in found)
            }
            for name in self._readings(token, candidates):
                matches[name] = _match(name, token, candidates[name], config)
        for phrase in phrases:
            found = by_name.get(phrase, [])
            if phrase not in matches and any(_accepts(r, phrase, False, config) for r in found):
                matches[phrase] = _match(phrase, phrase, found, config)
        for name, (found, written) in self._long_forms_in(question).items():
            if name not in matches:
                matches[name] = replace(_match(name, name, found, config), written=written)
        for match in self._typed_apart(question):
            # The words read as one name are not names of their own ("mei brd" is MeiBRD,
            # not BRD as well).
            typed = {w.lower() for w in match.apart.replace("-", " ").split()}
            matches = {n: m for n, m in matches.items() if m.asked.lower() not in typed}
            matches.setdefault(match.name, match)
        users = self.names.users_of(list(matches))
        with_own = [
            self._with_long_forms_introducers(replace(m, users=users.get(m.name, 0)))
            for m in matches.values()
        ]
        boosting = []
        for match in with_own:
            # Its introducers; and, when few papers define it, those too ("pessimistic
            # Virtual Gap Analysis" is a paper that defines VGA, not the one that coined it).
            few = match.definers if len(match.definers) <= config.max_definers else ()
            about = tuple(dict.fromkeys([*match.introducers, *few]))
            if about:
                boosting.append((match, about))
        boosted = frozenset(p for _, about in boosting for p in about)
        papers = self.names.paper_count() if with_own else 0
        return Recognised(tuple(with_own), boosted, tuple(boosting), papers)

    def _readings(self, token: str, candidates: Mapping[str, Sequence[NameRow]]) -> list[str]:
        """Which of the names `token` matches (`candidates`, with their defining rows) it
        reads as: the one in its own case; in another (lower) case, the commonest printing
        of the word among the papers, unless that is the word itself. "eval" is the word
        many papers print ("the eval split"), not the data set one paper calls EVAL; "fid"
        is FID, the image metric hundreds of papers print, rather than FiD, which a few
        do. A name's papers are those that print it (in either number) among the word's
        best passages, and those that define it."""
        own = [name for name in candidates if singular(token) == singular(name)]
        if own or self.passages is None or not candidates:
            return own or list(candidates)
        forms = printings_in(token, self.passages(token))
        papers = {
            name: len(
                {r.paper_id for r in rows if r.defined}.union(
                    *(forms.get(form, frozenset()) for form in number_forms(name))
                )
            )
            for name, rows in candidates.items()
        }
        most = max(papers.values())
        if most < len(forms.get(token, frozenset())):
            return []
        return [name for name, count in papers.items() if count == most]

    def _typed_apart(self, question: str) -> list[NameMatch]:
        """Names the question types as separate words ("flash attention" for
        FlashAttention, "graph rag" for GraphRAG), where the papers print those words
        joined as the name in at least as many papers as apart ("data set" stays two
        words though one paper calls itself DataSet). A name only printed, never defined,
        counts too: the joined name is what the papers' passages hold."""
        runs = typed_apart(question)
        if not runs or self.passages is None:
            return []
        printed = self.names.printed_names([run.joined for run in runs])
        defining = self.names.rows_for([], [run.joined for run in runs], defined_only=True)
        found = []
        for run in runs:
            for name in printed.get(run.joined, ()):
                if not spells(run, name):
                    continue
                rows = [r for r in defining if r.name == name]
                passages = self.passages(f"{run.written} {name}")
                apart, joined = apart_printings(run, name, passages)
                if len(apart) <= len(joined | {r.paper_id for r in rows}):
                    match = _match(name, run.written, rows, self.config)
                    found.append(replace(match, apart=run.written))
        return found

    def _with_long_forms_introducers(self, match: NameMatch) -> NameMatch:
        """`match` with the papers that introduce one of its long forms as a name of its
        own ("we refer to it as Fusion-in-Decoder") among its introducers."""
        if not match.long_forms:
            return match
        rows = self.names.rows_for(
            [], [form.lower() for form in match.long_forms], defined_only=True
        )
        more = [r.paper_id for r in rows if r.defined == INTRODUCED]
        if not more:
            return match
        return replace(match, introducers=tuple(dict.fromkeys([*match.introducers, *more])))

    def _long_forms_in(self, question: str) -> dict[str, tuple[list[NameRow], str]]:
        """Names whose long form the question writes out, with the rows of the papers that
        define them so, and the long form as written."""
        words = fold(question).replace("?", " ").replace(",", " ").split()
        longest = self.config.max_long_form_words
        grams = [
            " ".join(words[i:j])
            for i in range(len(words))
            for j in range(i + 2, min(len(words), i + longest) + 1)
        ]
        # Only the papers that give the name the long form written: "Virtual Gap Analysis"
        # is not any of the other things papers abbreviate as VGA.
        found = [r for r in self.names.rows_for_long_forms(grams) if r.defined]
        written = {r.name: r.long_form for r in found}
        grouped: dict[str, list[NameRow]] = {}
        for row in found:
            grouped.setdefault(row.name, []).append(row)
        return {name: (rows, written[name]) for name, rows in grouped.items()}


def boost(
    ranked: Sequence[Candidate], named: Sequence[Hit], amounts: Mapping[str, float]
) -> list[Candidate]:
    """`ranked` with every chunk of each paper of `amounts` raised by its amount, and the
    chunks of `named` (BM25 hits within those papers) that fusion did not find added below
    theirs: within a boosted paper the passages keep their order, BM25's after fusion's."""
    papers = {paper for paper, amount in amounts.items() if amount > 0}
    if not papers:
        return list(ranked)
    known = {c.chunk_id for c in ranked}
    floor = min((c.score for c in ranked), default=0.0)
    added = [
        Candidate(chunk, paper, floor - (n + 1) * 1e-6, lexical=score)
        for n, (chunk, paper, score) in enumerate(named)
        if chunk not in known and paper in papers
    ]
    raised = [
        replace(c, score=c.score + amounts[c.paper_id]) if c.paper_id in papers else c
        for c in [*ranked, *added]
    ]
    raised.sort(key=lambda c: c.score, reverse=True)
    return raised
