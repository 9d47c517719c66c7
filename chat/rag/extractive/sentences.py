"""The sentences of a retrieved passage that are fit to quote, and the debris that is not.

A passage is cut into sentences (not at abbreviations, initials or decimals);
a sentence is quoted only when it reads as prose: no headings, figure or
table text, axis ticks, reference-list entries, URLs, code, bare equations,
author or affiliation lines, and no fragment cut off by a chunk boundary.
A PDF's table chunk keeps its rows, cells split by " | ", read by
`chat/rag/extractive/tables.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chat.rag.sources import Source
from ingest.index.lexical.analysis import terms, words

# Tokens that end with a period without ending a sentence (compared lower case, period dropped).
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "al",
        "cf",
        "vs",
        "fig",
        "figs",
        "eq",
        "eqs",
        "sec",
        "secs",
        "tab",
        "no",
        "nos",
        "approx",
        "resp",
        "ref",
        "refs",
        "dr",
        "mr",
        "ms",
        "prof",
        "st",
        "ch",
        "chap",
        "vol",
        "pp",
        "ed",
        "eds",
        "viz",
        "ca",
        "incl",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
# A sentence end: the mark, closing quotes or brackets, then space; or a period between a
# word and a capitalised word with the space lost in extraction ("model.During"). Every
# alternative starts at the mark, so that the search skips to the next one (a lookbehind
# before it would be tried at every character: ten times slower).
_BOUNDARY = re.compile(
    r"[.!?](?:[\"'\u201d\u2019)\]]*\s+|(?<=[a-z)]{2}\.)(?=[A-Z][a-z]+\b)|(?<=[a-z]{2}\.)\d\s+"
    r"|[\"'\u201d\u2019)\]]+\d{1,2}\s+)"
)
# A footnote's mark at a sentence's start: glued to its first word ("5However"), or
# before a word that opens a sentence and is never counted ("3 We primarily report").
_FOOTNOTE_MARK = re.compile(
    r"^\d{1,2}(?=[A-Z][a-z])|^\d{1,2}\s(?=(?:We|The|This|These|In|For|However|Note|It|Our"
    r"|Thus|Here|As|To|Since|While|When|Although|Unlike|Following|See)\b)"
)
# After an initial's period ("... as A."), a footnote's mark and a new sentence.
_MARKED_START = re.compile(r"\d{1,2}\s[A-Z][a-z]")
_BULLET = re.compile(r"\s[\u2022\u25aa\u25cf\u2023]\s")  # list items run together in extraction
_SENTENCE_START = re.compile(r"[\"'\u201c\u2018(\[]?[A-Z0-9]")
_SENTENCE_END = re.compile(r"[.!][\"'\u201d\u2019)\]]*\d?$")  # a question is not an answer
_ARXIV_STAMP = re.compile(
    r"arXiv:\s?\d{4}\.\d{4,5}(?:v\d+)?(?:\s*\[[\w.-]+\])?(?:\s+\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4})?"
)
# A paper's own reference numbers, "[12]", "[3, 5]", "[1-4]": the answer's citation guard
# would read them as numbers of the answer's sources.
_REFERENCE_MARK = re.compile(r"\s?\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")
# Values a sentence lists in brackets after "of" or "=" ("we tried temperatures of [1, 2, 5,
# 10]"), not references: printed in parentheses, which the guard leaves alone.
_VALUE_LIST = re.compile(
    r"(?<=\bof )\[([\d.]+(?:,\s*[\d.]+)+)\]|(?<==\s)\[([\d.]+(?:,\s*[\d.]+)+)\]"
)
_DOTTED = re.compile(r"(?:[a-z]{1,2}\.)+[a-z]{1,2}")
_MAX_WORDS = 80
_MIN_WORDS = 4
_WORD = re.compile(r"[^\W\d_]{2,}")
_NUMBER = re.compile(r"(?<![^\s(])[-+\u2212]?\d+(?:[.,]\d+)*[%x]?(?=[,;)]?(?:\s|$))")
# A capital that starts a word (the capital first, as the mark of `_BOUNDARY`).
_CAPITALISED = re.compile(r"[A-Z](?<![^\s(\[\"'][A-Z])")
_LOWER_WORD = re.compile(r"(?<![^\s(\[\"'])[a-z][^\s)\],.;:\"']*")
_TABLE_NUMBERS = 4  # numbers in a sentence from which it may be a table row
_LIST_YEARS = 3  # years in a passage from which it may be a reference list
_LIST_SHARE = 0.4  # the share of its pieces unfit to quote from which it is one

_URL = re.compile(r"https?://|www\.|\b[\w-]+\.(?:com|org|io|net|edu|ai)/|\S+@\S+\.\w+")
_URL_ASIDE = re.compile(r"\((?:https?://|www\.)[^()\s]+\)")
_TEX = re.compile(r"\$[^$]*\$|\\[a-zA-Z]+(?:\{[^{}]*\})?")
_CAPTION = re.compile(
    r"(?:^|\s)\(?(?:Figure|Fig\.|Table|Tab\.|Algorithm|Listing)\s*[A-Z]?\d+[a-z]?\s*[:|]"
    r"|^\(?(?:Figure|Fig\.|Table|Tab\.)\s*[A-Z]?\d+[a-z]?\.\s"
    r"|^(?:Top|Bottom|Left|Right|Middle|Center|Inset)\s*(?:\([a-z]\))?\s*:"
    r"|\((?:left|right|middle|top|bottom|center)\)|(?:\.\.\.|\u2026).*(?:\.\.\.|\u2026)"
)
_VENUE = re.compile(
    r"\bIn (?:Proceedings|Advances|International|Conference|Findings)\b|\bProceedings of\b"
    r"|\bpreprint\b|\bConference on\b|\bJournal of\b|\bTransactions on\b|\bWorkshop on\b"
    r"|\bdoi\b|\bpp\.\s*\d|\bvol\.\s*\d|\bURL\b|\bCoRR\b|\bOpenReview\b",
)
_YEAR = re.compile(r"(?:19|20)(?<!\w19|\w20)\d\d[a-z]?\b")  # no word character before it
# "Smith, J.", "J. Smith,", "Smith J," - the way reference lists name authors.
_AUTHOR = re.compile(r"\b[A-Z][a-z'\u2019-]+,\s(?:[A-Z]\.\s?)+|\b(?:[A-Z]\.\s?){1,3}[A-Z][a-z'-]+,")
_LEADING_NUMBER = re.compile(r"^\[\d+\]|^\d+\.\s+[A-Z][a-z]+,")
_CODE = re.compile(
    r"[{}]|==|!=|<-|:=|\+=|\w\(\)|\w\.\w+\(|\bself\.|^(?:def|class|import|from|return)\s"
    r"|\b[a-z]+_[a-z_]+\b|\\[a-z]+\{"
)
# A pseudo-code line's comment: "Algorithm 4.1 S(a) | // Given a string ..." (not "https://").
_COMMENT = re.compile(r"(?<![:/])//\s")
# A setting printed in prose, "L=24", "lr = 0.001", "Parameters=340M": a value, not math.
_SETTING = re.compile(r"\s?=\s?[-+\u2212]?\d[\d.,\u2212]*[A-Za-z%]{0,2}(?=[\s,;.)]|$)")
_MATH = re.compile(r"[=+\u2212\u00d7\u2211\u220f\u222b\u2208\u2264\u2265\u2248\u00b7^|<>\\]")
_AFFILIATION = (
    "University", "Universit\u00e4t", "Institute", "Department", "Laborator", "School of",
    "College", "Inc.", "Equal contribution", "Correspondence", "Corresponding author",
)  # fmt: skip
# Characters without which a sentence holds no code, math or address (a quick first look).
_CODE_MARKS = frozenset("{}=<>_\\$|+^(\u2212\u00d7\u2211\u220f\u222b\u2208\u2264\u2265\u2248\u00b7")
_CODE_STARTS = ("def ", "class ", "import ", "from ", "return ")
# A sentence that opens with these carries on an equation: "= E[g t 2 ] (1 - b2) ...".
_EQUATION_GOES_ON = ("=", "+", "\u2212", "\u00b7", "\u2264", "\u2265", "\u2248")
_CAPTION_WORDS = ("Fig", "Tab", "Algorithm", "Listing", "Top", "Bottom", "Left", "Right",
                  "Middle", "Center", "Inset", "(left", "(right", "(middle", "(top", "(bottom",
                  "(center", "...", "\u2026")  # fmt: skip


@dataclass(frozen=True, eq=False)
class Sentence:
    """One candidate sentence, where it came from, and its lexical terms (each one its
    own: compared and hashed by identity, which keys score tables cheaply)."""

    text: str
    source: Source
    rank: int  # the source's place in the retrieved order, 0 = best
    position: int  # the sentence's place within its source
    terms: tuple[str, ...]
    is_title: bool
    # A table's row: the header line it is read under, when its chunk holds one.
    header: str = ""
    is_row: bool = False


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage, not split at abbreviations, initials or decimals; each
    item of a list is one."""
    items = _BULLET.split(f" {text} ")
    return [s for item in items for s in _split_item(item)]


def _split_item(text: str) -> list[str]:
    flat = " ".join(_ARXIV_STAMP.sub(" ", text).split())
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(flat):
        marked = _MARKED_START.match(flat, match.end()) is not None
        if not _SENTENCE_START.match(flat, match.end()) or _ends_with_abbreviation(
            flat[start : match.start() + 1], marked
        ):
            continue
        pieces.append(flat[start : match.end()].strip())
        start = match.end()
    pieces.append(flat[start:].strip())
    return [piece for piece in pieces if piece]


def _ends_with_abbreviation(text: str, marked: bool = False) -> bool:
    """Whether `text` ends with an abbreviation's period; an initial's ("J. Smith") only
    when no footnote's mark and new sentence follow it (`marked`: "... as A. 3 We")."""
    last = text.rsplit(" ", 1)[-1].lstrip("([\"'\u201c").rstrip(".").lower()
    if last in _ABBREVIATIONS:
        return True
    if len(last) == 1:
        return text[-2].isupper() and not marked  # an initial, as in "J. Smith"
    return _DOTTED.fullmatch(last) is not None  # "U.S.", "Ph.D."


def is_debris(sentence: str) -> bool:
    """True for a sentence that is mostly numbers, symbols or stray letters, or a run-on
    blob (pseudo-code, a table read as text) far longer than any real sentence."""
    # Settings ("lr = 0.001") are values of the prose, not symbols strewn in it.
    tokens = (_SETTING.sub(" ", sentence) if "=" in sentence else sentence).split()
    lexical = [w for w in words(sentence) if w.isalpha() and len(w) > 1]
    too_long = len(tokens) > _MAX_WORDS
    return too_long or len(lexical) < _MIN_WORDS or len(lexical) < 0.5 * len(tokens)


def is_caption(sentence: str) -> bool:
    """Figure or table text: a caption, a panel's label, a diagram's elided labels."""
    if not any(word in sentence for word in _CAPTION_WORDS):
        return False
    return _CAPTION.search(sentence) is not None


def is_table_row(sentence: str) -> bool:
    """Cells of a table read as text: a run of numbers among a few words."""
    numbers = len(_NUMBER.findall(sentence))
    return numbers >= _TABLE_NUMBERS and numbers > 0.25 * (sentence.count(" ") + 1)


def is_reference_entry(sentence: str) -> bool:
    """A reference-list entry: authors, a venue, a year, as a bibliography prints them."""
    if _LEADING_NUMBER.match(sentence):
        return True
    has_year = _YEAR.search(sentence) is not None
    authors = len(_AUTHOR.findall(sentence))
    if not (has_year or authors):
        return False
    return (authors >= 2 and has_year) or _VENUE.search(sentence) is not None


def is_code_or_math(sentence: str) -> bool:
    """Code, pseudo-code or an equation rather than prose (TeX, which abstracts keep,
    is left out of the count: "$O(n^2)$" is inline math in a sentence, not code)."""
    tokens = sentence.split()
    code = math = 0
    if not _CODE_MARKS.isdisjoint(sentence) or sentence.startswith(_CODE_STARTS):
        plain = _TEX.sub(" ", sentence) if "$" in sentence or "\\" in sentence else sentence
        plain = _SETTING.sub(" ", plain)
        code = len(_CODE.findall(plain))
        math = len(_MATH.findall(plain))
    single = sum(
        1 for t in tokens if len(t.strip(".,;:()[]")) == 1 and t.strip(".,;:()[]").isalpha()
    )
    if _COMMENT.search(sentence) or sentence.startswith(_EQUATION_GOES_ON):
        return True
    return code >= 2 or math > max(3, len(tokens) // 6) or single > max(3, len(tokens) // 4)


def is_heading_or_byline(sentence: str) -> bool:
    """A heading, a title, an author and affiliation line or an address (but an address
    in parentheses is an aside of a sentence: "HausaNLP (https://...), a catalog"), or
    capitalised words with no lower-case word but short function words ("of", "from")."""
    if any(word in sentence for word in _AFFILIATION):
        return True
    if ("/" in sentence or "@" in sentence) and _URL.search(_URL_ASIDE.sub(" ", sentence)):
        return True
    capitalised = len(_CAPITALISED.findall(sentence))
    lower = _LOWER_WORD.findall(sentence)
    alpha = capitalised + len(lower)
    title_case = capitalised > 0.6 * alpha
    return alpha >= 4 and title_case and all(len(t) <= 4 for t in lower)


def is_fragment(sentence: str, first: bool) -> bool:
    """A piece cut off by a chunk boundary: no sentence end (nor is a question one: it
    does not answer), or a lower-case start."""
    if not _SENTENCE_END.search(sentence):
        return True
    head = sentence.split(" ", 1)[0]
    # A chunk may start mid-sentence; a name printed in lower case ("word2vec") may not.
    return first and head[:1].islower() and head.isalpha() and head.islower()


def is_quotable(sentence: str, first: bool) -> bool:
    """Whether a sentence of a passage's body reads as prose worth quoting."""
    return not (
        is_debris(sentence)
        or is_caption(sentence)
        or is_table_row(sentence)
        or is_fragment(sentence, first)
        or is_reference_entry(sentence)
        or is_code_or_math(sentence)
        or is_heading_or_byline(sentence)
    )


def is_reference_list(pieces: Sequence[str], quotable: Sequence[bool]) -> bool:
    """A passage of a reference list: dated, and mostly pieces unfit to quote (authors,
    venues), so that even the titles between them are not quoted as sentences."""
    years = sum(len(_YEAR.findall(piece)) for piece in pieces)
    return years >= _LIST_YEARS and quotable.count(False) >= _LIST_SHARE * len(pieces)


def source_sentences(source: Source, rank: int) -> list[Sentence]:
    """The quotable sentences of one source; an abstract's title line is marked as such."""
    title, body = "", source.text
    if source.kind == "abstract" and "\n\n" in source.text:
        title, body = source.text.split("\n\n", 1)
    texts = [(t, True) for t in split_sentences(title) if not is_debris(t)]
    pieces = split_sentences(body)
    quotable = [is_quotable(t, first=i == 0) for i, t in enumerate(pieces)]
    if not is_reference_list(pieces, quotable):
        texts += [(t, False) for t, ok in zip(pieces, quotable, strict=True) if ok]
    quoted = [(_unmarked(text), is_title) for text, is_title in texts]
    return [
        Sentence(text, source, rank, position, tuple(terms(text)), is_title)
        for position, (text, is_title) in enumerate(quoted)
    ]


def _unmarked(text: str) -> str:
    """`text` without the paper's reference and footnote marks, its bracketed lists of
    values in parentheses."""
    listed = _VALUE_LIST.sub(lambda m: f"({m[1] or m[2]})", text)
    return _FOOTNOTE_MARK.sub("", _REFERENCE_MARK.sub("", listed))


def defining_pieces(source: Source, rank: int) -> list[Sentence]:
    """Every sentence of a source that is no reference-list entry, code or debris of
    symbols, quotable or not (a caption, a long sentence): where to look for a long
    form that no quotable sentence gives."""
    pieces = split_sentences(source.text)
    if is_reference_list(pieces, [is_quotable(p, first=False) for p in pieces]):
        return []
    kept = [
        _unmarked(p)
        for p in pieces
        if not (is_reference_entry(p) or is_code_or_math(p)) and _WORD.search(p)
    ]
    return [
        Sentence(text, source, rank, 1000 + i, tuple(terms(text)), False)
        for i, text in enumerate(kept)
    ]
