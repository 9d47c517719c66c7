"""Names in a question: recognised against the index's own catalog of names.

A question's tokens are looked up in the catalog's `names` table
(`ingest/index/name_catalog.py`), case-sensitively: "ZeRO" is the optimizer,
"zero" the number. A token in another case still matches a name when the
name is marked by its case and its lower-case form is rare in English
("fid" finds FiD, "flashattention" FlashAttention; "zero" never finds
ZeRO). A plain capitalised name from a title ("Adam: ...") matches only
where it is capitalised inside the question, not as its first word. A name
typed in capitals finds the capitalised name a long form defines: a PDF that
sets RETRO in small capitals reads "Retro" ("Retrieval-Enhanced Transformer
(Retro)"), and people type RETRO. A long
form written out ("Fusion-in-Decoder") finds its name too, and so does a name
with the capitalised word after it that a title gives as one ("CAV-MAE Sync").

A recognised name brings its long forms (the commonest first), which both
retrievers search for beside the question, and the papers it is about,
whose passages get a boost measured with `bench/quality/names.py`: those that
introduce it or its long form as their own, else (a name few papers define)
those that define it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache

from chat.rag.names.coining import cited_coiner, late_introducers
from chat.rag.names.config import NamesConfig
from chat.rag.names.definitions import is_name
from chat.rag.names.kept import KeptAnswers, KeptPapers
from chat.rag.names.matches import (
    NameMatch,
    Recognised,
    accepts,
    match_of,
    named_phrases,
)
from chat.rag.names.printing import Passages, apart_printings, printings_in, spells, typed_apart
from chat.rag.retrieval.fusion import Candidate, Hit
from ingest.index.lexical.analysis import terms
from ingest.index.name_catalog import NameCatalog, NameRow
from ingest.index.names.mining import INTRODUCED, fold, number_forms, singular, tokens

# Words that ask rather than describe a paper: they never tell two namesakes apart.
_ASKING_WORDS = frozenset(
    terms(
        "who wrote paper author authors when published submitted released arxiv first came "
        "out year what which"
    )
)
# The question's other words a namesake must hold to be read before the oldest.
_FITTING_WORDS = 2
# A name no paper defines is the own name of the paper that prints it this often or more,
# and this many times as often as any other paper ("We call the resulting models
# InstructGPT": its paper prints InstructGPT 101 times, no other more than once).
_DOMINANT_COUNT = 20
_DOMINANT_RATIO = 10
# Matches kept, each for the rows it was made of (`NameRecogniser._match_of`).
KEPT_MATCHES = 1_024


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
        self._papers = KeptPapers(names.catalog)
        self._recognised: KeptAnswers[Recognised] = KeptAnswers(names.catalog)
        # Each name's coiner, read once while the catalog stays as it is: "RAG" has a
        # thousand definers whose dates every question naming it would read again.
        self._coiners: KeptAnswers[str | None] = KeptAnswers(names.catalog)
        self._paper_count: KeptAnswers[int] = KeptAnswers(names.catalog)
        self._late: KeptAnswers[frozenset[str]] = KeptAnswers(names.catalog)
        # A match follows from its rows alone, which many questions read alike ("RAG" has
        # hundreds, sorted and told apart by meaning for each): kept for the rows as read.
        self._match_of = lru_cache(maxsize=KEPT_MATCHES)(self._match_of_rows)

    def recognise(self, question: str) -> Recognised:
        """The names `question` asks about, read once while the catalog stays as it is: a
        comparison's question is read before it is searched, and many readers ask alike."""
        return self._recognised.get(question, self._recognise)

    def _recognise(self, question: str) -> Recognised:
        config = self.config
        asked = _with_variant_heads(tokens(question))
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
        # Each name's singular in lower case, what a token must be to match it.
        folded = {name: singular(name).lower() for name in by_name}
        for position, token in enumerate(asked):
            key = singular(token).lower()
            candidates = {
                name: found
                for name, found in by_name.items()
                if folded[name] == key
                and name not in matches
                and any(accepts(r, token, position == 0, config) for r in found)
            }
            for name in self._readings(token, candidates):
                rows = list(candidates[name])
                # Typed in capitals, a name is also the one a PDF set in small capitals
                # prints capitalised: RETRO is "Retro" in "Retrieval-Enhanced Transformer
                # (Retro)", and both papers calling themselves RETRO are its readings.
                small_caps = name.capitalize()
                if token.isupper() and name.isupper() and small_caps in candidates:
                    rows += [r for r in candidates[small_caps] if r not in rows]
                matches[name] = self._match_of(name, token, tuple(rows))
        for phrase in phrases:
            found = by_name.get(phrase, [])
            if phrase not in matches and any(accepts(r, phrase, False, config) for r in found):
                matches[phrase] = self._match_of(phrase, phrase, tuple(found))
        for name, (found, written) in self._long_forms_in(question).items():
            if name not in matches:
                match = self._match_of(name, name, tuple(found))
                matches[name] = replace(match, written=written)
        for match in self._typed_apart(question):
            # The words read as one name are not names of their own ("mei brd" is MeiBRD,
            # not BRD as well).
            typed = {w.lower() for w in match.apart.replace("-", " ").split()}
            matches = {n: m for n, m in matches.items() if m.asked.lower() not in typed}
            matches.setdefault(match.name, match)
        for token in asked:
            if token in matches or any(m.asked == token for m in matches.values()):
                continue
            if (printer := self._dominant_printer(token)) is not None:
                matches[token] = NameMatch(token, token, (), (printer,), introducers=(printer,))
        users = self.names.users_of(list(matches))
        # Every name's words: one name of the question never describes another's paper.
        named = " ".join(
            " ".join((m.name, m.asked, m.written, *m.long_forms)) for m in matches.values()
        )
        with_own = [
            self._in_reading_order(
                question,
                named,
                self._with_cited_coiner(
                    self._without_late_introducers(
                        self._with_long_forms_introducers(replace(m, users=users.get(m.name, 0)))
                    )
                ),
            )
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
        papers = self._paper_count.get("", lambda _: self.names.paper_count()) if with_own else 0
        return Recognised(tuple(with_own), boosted, tuple(boosting), papers)

    def _match_of_rows(self, name: str, asked: str, rows: tuple[NameRow, ...]) -> NameMatch:
        return match_of(name, asked, rows, self.config)

    def _dominant_printer(self, token: str) -> str | None:
        """The paper whose own name `token` is though no paper defines it: the one that
        prints it `_DOMINANT_COUNT` times or more and `_DOMINANT_RATIO` times as often as
        any other; None for a word that is no name or that many papers print alike."""
        if not is_name(token):
            return None
        top = self.names.top_printers(token)
        if not top or top[0][1] < _DOMINANT_COUNT:
            return None
        if len(top) > 1 and top[0][1] < _DOMINANT_RATIO * top[1][1]:
            return None
        return top[0][0]

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
                    match = self._match_of(name, run.written, tuple(rows))
                    found.append(replace(match, apart=run.written))
        return found

    def _in_reading_order(self, question: str, named: str, match: NameMatch) -> NameMatch:
        """`match` with its introducers in the order they are read, from one catalog query:
        first submitted first, since a name is the coinage of the first paper to present
        it ("RAG" is the 2020 paper's, not a 2025 one that presents its own RAG system; a
        paper of no known date comes last); but first of all the one whose title and
        abstract hold the most of the question's other words, when it holds more than the
        oldest and at least `_FITTING_WORDS` of them (one word, "build", is no
        description): "Who wrote REACT, the real-time V2X framework?" is the REACT paper
        about V2X, not an older REACT. `named` is every name's words in the question,
        which describe no paper of another name."""
        if len(match.introducers) < 2:
            return match
        wanted = set(terms(question)) - set(terms(named)) - _ASKING_WORDS
        papers = self._papers.read(match.introducers, with_words=bool(wanted))
        dates = {p: paper.published if (paper := papers.get(p)) else "" for p in match.introducers}
        oldest = sorted(match.introducers, key=lambda p: (not dates[p], dates[p]))
        fits = {p: len(wanted & paper.words) if (paper := papers.get(p)) else 0 for p in oldest}
        ranked = sorted(oldest, key=lambda p: -fits[p])  # stable: oldest first among equals
        best = fits[ranked[0]]
        fitting = best >= _FITTING_WORDS and best > fits[oldest[0]]
        return replace(match, introducers=tuple(ranked if fitting else oldest))

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

    def _without_late_introducers(self, match: NameMatch) -> NameMatch:
        """`match` without the papers presenting as their own a long form of the name that
        several papers of the library had defined before them: a 2025
        paper proposing "Low-Rank Adaptation (LoRA) patching" did not coin LoRA, which
        hundreds of earlier papers define alike, and "Who introduced LoRA?" is not about
        it. A paper naming itself so in its title or in words ("we call it ...") stays."""
        if not match.introducers:
            return match
        key = f"{match.name}\x1f{hash(match.introducers)}"
        late = self._late.get(key, lambda _: late_introducers(self.names, match))
        if not late:
            return match
        return replace(match, introducers=tuple(p for p in match.introducers if p not in late))

    def _with_cited_coiner(self, match: NameMatch) -> NameMatch:
        """`match` with the paper that coined the name among its introducers when the
        mining missed it: a paper defining the name before any of its introducers, that
        the library's reference lists cite (`coining.cited_coiner`). Dense Passage
        Retrieval defines "DPR" in its text, not as its abstract's own name; a 2025 paper
        presenting "an enhanced DPR framework" does the latter, and is not what "DPR"
        means to a reader."""
        if not match.introducers:
            return match
        key = f"{match.name}\x1f{hash((match.introducers, match.definers))}"
        best = self._coiners.get(key, lambda _: cited_coiner(self.names, match))
        return match if best is None else replace(match, introducers=(best, *match.introducers))

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
        # As the question writes it ("weight decay"), not as a paper prints it ("Weight
        # Decay"): a long form typed in lower case is words, not a name of a paper's own.
        # Read once a name, from the long form of its last row.
        last = {r.name: r.long_form for r in found}
        written = {name: _as_written(question, form) for name, form in last.items()}
        grouped: dict[str, list[NameRow]] = {}
        for row in found:
            grouped.setdefault(row.name, []).append(row)
        return {name: (rows, written[name]) for name, rows in grouped.items()}


def _as_written(question: str, long_form: str) -> str:
    """`long_form` as `question` writes it, its case and hyphens kept; as given when the
    question writes it otherwise."""
    words = fold(long_form).split()
    pattern = r"[\s\-\u2010-\u2014]+".join(re.escape(w) for w in words)
    found = re.search(rf"(?<!\w){pattern}(?!\w)", question, re.IGNORECASE)
    return found.group(0) if found else long_form


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


# What follows a name to say which of its models is meant: "BERT-large", "ViT-Huge", "T5-11B".
_VARIANT = re.compile(
    r"(?P<head>.+?)-(?:base|large|small|medium|huge|tiny|mini|big|xl|xxl|\d+(?:\.\d+)?[kmb])", re.I
)


def _with_variant_heads(asked: list[str]) -> list[str]:
    """The question's tokens with the name each variant's token is of ("BERT" after
    "BERT-large"): the variant's own paper is that name's."""
    heads = [m["head"] for t in asked if (m := _VARIANT.fullmatch(t))]
    return [*asked, *(h for h in dict.fromkeys(heads) if h not in asked)]
