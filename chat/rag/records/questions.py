"""Which record field a question asks for, and which paper or author it asks about."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chat.rag.records.titles import (
    KEY_CHARS,
    capitalised_head,
    folded,
    title_head_paper,
    titles_of,
)
from chat.rag.records.unowned import Unowned, unowned_name
from ingest.index.names import citations
from ingest.index.names.citations import key_words
from ingest.index.records import ARXIV_ID_RE

if TYPE_CHECKING:
    from chat.rag.names.matches import Recognised
    from ingest.index.catalog import Catalog

AUTHORS = "authors"
DATE = "date"
VENUE = "venue"
CATEGORY = "category"
VERSION = "version"
PAPERS_BY = "papers-by"
CITES = "cites"  # the library's papers a paper cites ("What does RETRO build on?")
CITED_BY = "cited-by"  # the library's papers citing it ("Which papers cite DPR?")
GRAPH_FIELDS = (CITES, CITED_BY)

_FIELDS = (
    (AUTHORS, r"\bwho (?:wrote|authored|are the authors|is the author|were the authors)\b"
     r"|\bauthors? of\b|\bwritten by whom\b|\bwho are .* authors\b"),
    (VENUE, r"\b(?:which|what) (?:venue|conference|journal|workshop)\b|\bvenue\b"
     r"|\bwhere (?:was|were|did) .*\b(?:published|presented|accepted|appear)"),
    (DATE, r"\bwhen (?:was|were|did|is)\b.*\b(?:published|submitted|released|posted|appear"
     r"|come out|written)|\b(?:what|which) (?:year|date|month)\b|\bpublication date\b"),
    # The paper's categories, not a dataset's ("how do they split the ILSVRC categories").
    (CATEGORY, r"\barxiv categor|\bsubject class|\bin (?:what|which) categor(?:y|ies)\b"
     r"|\bcategor(?:y|ies) of (?:the|this|that|its) paper\b|\b(?:what|which) categor(?:y|ies)"
     r"\b[^?]*\b(?:in|under|listed|filed|belongs? to|falls? under)\s*\??\s*$"),
    (VERSION, r"\b(?:which|what|latest|current) version\b|\bhow many versions\b"),
)  # fmt: skip
# Which of two came first: "Which came out first, X or Y?", "Was X or Y submitted first?"
_WHICH_FIRST = re.compile(
    r"\bcame (?:out )?(?:first|earlier|later|last)\b|\bwhich is (?:older|newer)\b"
    r"|\b(?:submitted|published|released|posted)\b[^?]{0,80}?\b(?:first|earlier)\b",
    re.IGNORECASE,
)
_OR = re.compile(r"\bor\b", re.IGNORECASE)
_PAPERS_BY = re.compile(
    r"\b(?:papers?|articles?|works?) (?:by|of|from|written by|authored by) (?P<who>.+)"
    r"|\bwhat (?:has|did|have) (?P<who2>.+?) (?:written|write|published|publish)\b",
    re.IGNORECASE,
)
# Questions about the citation graph, each with the words that name the paper (`paper`).
_END = r"\s*[?.!]*\s*$"
_GRAPH = (
    (CITES, r"\b(?:what|which)\b.*?\b(?:does|did|do)\s+(?P<paper>.+?)\s+(?:cite|build"
     r"(?:s)? (?:up)?on|reference)\b"),
    (CITES, rf"\b(?:references|bibliography) of (?P<paper>.+?){_END}"),
    (CITES, rf"\b(?:papers|works) (?:cited|referenced) (?:by|in) (?P<paper>.+?){_END}"),
    (CITED_BY, rf"\bwho (?:cites|cited|has cited|builds on|built on) (?P<paper>.+?){_END}"),
    (CITED_BY, r"\b(?:which|what) (?:papers?|works?|articles?)\b.*?\b(?:cite|cites|cited"
     rf"|have cited|build on|builds on|built on) (?P<paper>.+?){_END}"),
    (CITED_BY, rf"\b(?:citations (?:of|to)|papers citing) (?P<paper>.+?){_END}"),
)  # fmt: skip
# "Which detectors ...", "What datasets ...": the noun a which/what question asks for.
_ASKED_NOUN = re.compile(r"\s*(?:which|what)\s+(?:other\s+)?(?P<noun>[a-z]+)\b", re.IGNORECASE)
# Nouns of a question that asks for papers (or asks nothing of a noun: "What does ...").
_CITED_THINGS = frozenset((
    "papers", "paper", "works", "work", "articles", "article", "publications", "studies",
    "references", "reference", "prior", "previous", "earlier", "related",
    "does", "did", "do", "is", "are", "was", "were", "has", "have",
))  # fmt: skip
_ID_RE = re.compile(rf"(?:arxiv:\s*|\b)(?P<full>{ARXIV_ID_RE.pattern})\b", re.IGNORECASE)
_QUOTED = re.compile('["\u201c\'\u2018](?P<title>[^"\u201d\u2019]{8,}?)["\u201d\u2019]')
_MIN_TITLE = KEY_CHARS  # a shorter title written in a question is too likely a phrase
_MIN_TITLE_WORDS = 4  # a title written in its case scopes a question from this many words
_MIN_OPENING_WORDS = 5  # a title's first words a question may shorten it to, at least
_MOST_OF_TITLE = 0.6  # and the share of its words they must be (a title's colon aside)
_MOST_WORDS_READ = 40  # a question's words a title's opening is looked for among
_MAX_SCOPED = 3  # the most papers of a scope whose records answer a question naming none
# The two sides of "X or Y": after a comma or the question's verb, before its next verb.
_TWO_SIDES = re.compile(
    r"(?:,|^(?:was|is|did|does|were|are)\b)\s*(?P<first>[^,?]+?)\s+or\s+(?P<second>[^,?]+?)"
    r"(?:\s+(?:submitted|published|released|posted|written|pre-?trained|trained|come|came"
    r"|first|earlier)\b.*)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "the X paper": the paper a question calls by what its title puts before the colon.
_NAMED_PAPER = re.compile(r"\bthe (?P<name>[\w][\w .\-]{0,60}?) paper\b", re.IGNORECASE)


@dataclass(frozen=True)
class RecordQuestion:
    """What a record question asks for (`field`) and of which papers, or whose (`person`)."""

    field: str
    paper_ids: tuple[str, ...] = ()
    person: str = ""
    asked_name: str = ""  # the well-known name the question calls the paper by ("RETRO")
    # A name no paper of the library presents as its own though several define it ("LoRA",
    # whose paper the library lacks): `paper_ids` are then the earliest of its definers.
    unowned: Unowned | None = None


def asked_field(question: str) -> str | None:
    """The record field a question asks for, or None when it asks about the content."""
    if graph := graph_match(question):
        return graph[0]
    if _PAPERS_BY.search(question):
        return PAPERS_BY
    for field, pattern in _FIELDS:
        if re.search(pattern, question, re.IGNORECASE):
            return field
    if _WHICH_FIRST.search(question) and _OR.search(question):
        return DATE
    return None


def graph_match(question: str) -> tuple[str, str] | None:
    """A citation graph question's field and the words naming its paper, else None. "Which
    detectors does ZS-YOLO build on?" asks for detectors, which the paper's text names: a
    question for things other than papers is about the content."""
    if (asked := _ASKED_NOUN.match(question)) and asked["noun"].lower() not in _CITED_THINGS:
        return None
    for field, pattern in _GRAPH:
        match = re.search(pattern, question, re.IGNORECASE)
        if match:
            return field, match["paper"].strip(" \"'\u201c\u201d")
    return None


def read_question(
    question: str, catalog: Catalog, names: Recognised, scope: Sequence[str] = ()
) -> RecordQuestion | None:
    """The record question, with the paper found by its id, title or well-known name, else
    the papers the question is scoped to ("Who wrote it?" on a paper's page, or after an
    answer about it); None when it asks for no record field or names no paper."""
    field = asked_field(question)
    if field is None:
        return None
    if field == PAPERS_BY:
        return _papers_by(question, catalog)
    compared = compared_papers(question, catalog, names)
    if compared:
        return RecordQuestion(field, compared)
    for match in _ID_RE.finditer(question):
        if catalog.get_paper(match["id"]) is not None:
            return RecordQuestion(field, (match["id"],))
    titled = _by_title(question, catalog) or _by_title_opening(question, catalog)
    if titled:
        return RecordQuestion(field, (titled,))
    head, headed = capitalised_head(question, catalog)  # taken after the names it holds
    for name in names.matches:
        if headed and f" {folded(name.asked)} " not in f" {head} ":
            # "Who wrote Beyond Summarization, the position paper on AI support ...?"
            return RecordQuestion(field, (headed,))
        # Of a name's papers, the one the question is scoped to (a reading asked again).
        papers = sorted(name.own_papers, key=lambda p: p not in scope)
        if (
            papers
            and (name.marked or name.introducers)
            and catalog.get_paper(papers[0]) is not None
        ):
            return RecordQuestion(field, (papers[0],), asked_name=name.asked)
    headed = headed or _title_starting(question, catalog) or _by_title_name(question, catalog)
    if headed:
        return RecordQuestion(field, (headed,))
    if field in (AUTHORS, DATE) and (unowned := unowned_name(question, names, catalog)) is not None:
        return RecordQuestion(field, (unowned.earliest,), unowned=unowned)
    scoped = [i for i in scope[:_MAX_SCOPED] if catalog.get_paper(i) is not None]
    return RecordQuestion(field, tuple(scoped)) if scoped else None


def compared_papers(question: str, catalog: Catalog, names: Recognised) -> tuple[str, ...]:
    """The two papers a question sets side by side ("Which came first, Adam or Batch
    Normalization?", "Was DPR or RAG submitted first?"): the words either side of its "or",
    each read as a name, a title, or what a title puts before its colon; () unless both
    sides are papers, and different ones."""
    match = _TWO_SIDES.search(question)
    if match is None:
        return ()
    papers = [side_paper(match[side], catalog, names) for side in ("first", "second")]
    if None in papers or papers[0] == papers[1]:
        return ()
    return tuple(p for p in papers if p is not None)


def side_paper(side: str, catalog: Catalog, names: Recognised) -> str | None:
    """The paper one side of a comparison names: its whole words as a name the question's
    names hold, a paper's title, or a title's part before its colon (the first submitted);
    read as written, then without a leading article or a trailing "paper"."""
    written = folded(re.sub(r"(?:'s|\u2019s)\b", "", side))
    bare = re.sub(r"^(?:the|a|an)\s+|\s+paper$", "", written)
    for reading in dict.fromkeys((written, bare)):
        if reading and (found := _paper_called(reading, catalog, names)):
            return found
    return None


# "In the RETRO paper, what does CCA stand for?", "According to the DPR paper, ...": the
# clause before the question proper that says which paper to read.
_WHERE = re.compile(r"^\s*(?:in|according to|within)\s+(?P<where>[^,?]{1,200}),", re.IGNORECASE)
_PAPER_WORD = re.compile(r"\s*\b(?:paper|article)$", re.IGNORECASE)


def where_clause(question: str) -> str:
    """The words of a leading "In the X paper," clause; "" when the question opens with
    none."""
    match = _WHERE.match(question)
    return match["where"].strip() if match else ""


def where_paper(
    question: str, catalog: Catalog, recognise: Callable[[str], Recognised]
) -> str | None:
    """The paper a leading clause names ("In the RETRO paper, ...", "According to DPR,
    ..."): a name some paper introduces, or a whole title; None for a description ("In the
    knowledge distillation paper", which a title may begin with by chance) or any other
    clause ("In practice, ...", "In 2020, ...")."""
    where = re.sub(r"(?:'s|\u2019s)\b", "", where_clause(question))
    plain = _PAPER_WORD.sub("", re.sub(r"^(?:the|a|an)\s+", "", where, flags=re.I)).strip()
    if not plain:
        return None
    for name in recognise(where).matches:
        if name.own_papers and folded(plain) in {folded(name.asked), folded(name.name)}:
            return name.own_papers[0]
    return _title_row(catalog, plain)


def _paper_called(written: str, catalog: Catalog, names: Recognised) -> str | None:
    for name in names.matches:
        if name.own_papers and written in {folded(name.asked), folded(name.name)}:
            return name.own_papers[0]
    return _title_row(catalog, written) or title_head_paper(written, catalog)


def _papers_by(question: str, catalog: Catalog) -> RecordQuestion | None:
    match = _PAPERS_BY.search(question)
    assert match is not None
    who = (match["who"] or match["who2"] or "").strip(" ?.!")
    who = re.sub(r"\s+(?:in|on|about)\b.*$", "", who)
    person = catalog.person(who) if who else None
    if person is None:
        return None
    ids = tuple(p.id for p in catalog.papers_of(person))
    return RecordQuestion(PAPERS_BY, ids, person=person.display) if ids else None


def _by_title(question: str, catalog: Catalog) -> str | None:
    """The paper whose title the question writes, quoted or not (the longest that fits)."""
    asked = folded(question)
    return _titled(question, catalog, cased=False, fits=lambda title: folded(title) in asked)


def paper_titled(question: str, catalog: Catalog) -> str | None:
    """The paper whose title the question writes as a title: quoted, or in the title's own
    case, four words at least ("What is the Transformer in Attention Is All You Need?").
    Words that merely run as a title does ("how does neural machine translation work") name
    no paper."""

    def fits(title: str) -> bool:
        whole = re.search(rf"(?<!\w){re.escape(title)}(?!\w)", question)
        return len(title.split()) >= _MIN_TITLE_WORDS and whole is not None

    return _titled(question, catalog, cased=True, fits=fits)


def _titled(
    question: str, catalog: Catalog, *, cased: bool, fits: Callable[[str], bool]
) -> str | None:
    """A quoted title's paper, else the longest title the question holds (in its case, or
    in any) that `fits`."""
    for quoted in _QUOTED.finditer(question):
        found = _title_row(catalog, quoted["title"])
        if found:
            return found
    text, titles = question if cased else question.lower(), titles_of(catalog)
    if titles is not None:
        written = [(t.id, t.title) for t in titles.written_in(text, cased=cased)]
    else:
        holds = catalog.db.contains("?", "title" if cased else "lower(title)")
        written = catalog.db.execute(
            f"SELECT id, title FROM papers WHERE length(title) >= ? AND {holds}", (_MIN_TITLE, text)
        ).fetchall()
    titled = [
        (paper, title) for paper, title in written if len(title) >= _MIN_TITLE and fits(title)
    ]
    return str(max(titled, key=lambda t: len(t[1]))[0]) if titled else None


def _by_title_opening(question: str, catalog: Catalog) -> str | None:
    """The paper whose title's opening the question writes, as people shorten a title: the
    part before its colon ("An Image is Worth 16x16 Words"), or most of its words, five
    at least ("Paper Plain: Making Medical Research Papers Approachable to Healthcare
    Consumers", its last four words left out). The longest opening wins; of papers
    sharing it, the first submitted. The papers looked at are those whose title's first
    words the question holds, found through the catalog's index of title openings."""
    words = key_words(question)[:_MOST_WORDS_READ]
    width = citations.OPENING_WORDS
    starts = [" ".join(words[i : i + width]) for i in range(len(words) - width + 1)]
    if not starts:
        return None
    padded = f" {folded(question)} "
    best: tuple[int, str, str] | None = None
    for paper_id, title, published in citations.opening_with(catalog.db, starts):
        opening = _opening_written(title, padded)
        if opening and (best is None or (-opening, published or "9") < best[:2]):
            best = (-opening, published or "9", paper_id)
    return best[2] if best else None


def _opening_written(title: str, folded_question: str) -> int:
    """How many words of `title`'s opening `folded_question` (folded, space-padded) holds,
    when they make a shortened title: up to its colon (three words at least), or most of
    it, five words at least; else 0."""
    head, colon, _ = title.partition(":")
    words = folded(title).split()
    head_words = len(folded(head).split()) if colon else 0
    held = 0
    for count in range(len(words), 2, -1):
        if f" {' '.join(words[:count])} " in folded_question:
            held = count
            break
    most = held >= _MIN_OPENING_WORDS and held >= _MOST_OF_TITLE * len(words)
    if most or (head_words >= 3 and held >= head_words):
        return held
    return 0


def _by_title_name(question: str, catalog: Catalog) -> str | None:
    """The paper "the X paper" means when X is no name the names catalog knows but what a
    title puts before its colon ("the Batch Normalization paper" is "Batch Normalization:
    Accelerating Deep Network Training ..."); of several such titles, the first submitted."""
    for match in _NAMED_PAPER.finditer(question):
        name = folded(match["name"])
        found = title_head_paper(name, catalog) if name else None
        if found:
            return found
    return None


def _title_starting(question: str, catalog: Catalog) -> str | None:
    """The one paper whose title begins with the words a citation graph question names its
    paper by ("Who cites Dense Passage Retrieval?"): three words at least."""
    matched = graph_match(question)
    written = matched[1].lower() if matched else ""
    words = folded(written)
    if len(words.split()) < _MIN_TITLE_WORDS - 1 or len(words) < _MIN_TITLE:
        return None
    escaped = re.sub(r"([\\%_])", r"\\\1", written)
    rows = catalog.db.execute(
        "SELECT id, title FROM papers WHERE lower(title) LIKE ? ESCAPE '\\'", (f"{escaped}%",)
    ).fetchall()
    ids = [r["id"] for r in rows if f"{folded(r['title'])} ".startswith(f"{words} ")]
    return str(ids[0]) if len(ids) == 1 else None


def _title_row(catalog: Catalog, title: str) -> str | None:
    titles = titles_of(catalog)
    if titles is not None:
        return titles.paper_titled(title.strip().lower())
    row = catalog.db.execute(
        "SELECT id FROM papers WHERE lower(title) = ? LIMIT 1", (title.strip().lower(),)
    ).fetchone()
    return None if row is None else str(row["id"])
