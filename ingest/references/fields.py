"""Read one reference entry into its fields: authors, title, year, venue, arXiv id, DOI.

Two layouts cover most papers: author-year ("Kenton Lee, Ming-Wei Chang, and Kristina
Toutanova. 2019. Latent retrieval for ... In Proc. ACL.") and authors-title-venue with the
year at the end ("K. He, X. Zhang, S. Ren, and J. Sun. Deep residual learning for image
recognition. In CVPR, 2016."). An entry with neither a year nor an identifier, or whose
title cannot be told, is no reference.
"""

from __future__ import annotations

import re

from ingest.index.records import Reference
from ingest.references.entries import YEAR

_ARXIV = re.compile(
    r"(?:arXiv\s*:?\s*|abs/|arxiv\.org/(?:abs|pdf)/)"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
    re.I,
)
# An arXiv id printed bare, as an entry's venue ("Training very deep networks. 1507.06228,
# 2015."): a year from 2007 and a month, after the title's sentence.
_BARE_ARXIV = re.compile(
    r"(?<=\.\s)(?P<id>(?:0[7-9]|[1-9]\d)(?:0[1-9]|1[0-2])\.\d{4,5})(?=[,.]?(?:\s|$))"
)
_DOI = re.compile(r"\b(?:doi\s*:?\s*|doi\.org/)?(?P<doi>10\.\d{4,9}/[^\s,;\"<>]+)", re.I)
# "Authors. 2019. Title" and "Authors. 2019a. Title": the year right after the authors.
_YEAR_AFTER_AUTHORS = re.compile(
    r"^(?P<authors>.+?)[.,]\s+\(?(?P<year>(?:19|20)\d\d)[a-z]?\)?\.\s+"
)
# IEEE's layout: 'A. Author and B. Author, “The title,” in Venue, 2016.'
_QUOTED_TITLE = re.compile(
    r"^(?P<authors>[^\u201c\u201d\"]+?),?\s*[\u201c\"](?P<title>[^\u201d\"]{4,}?)[,.]?[\u201d\"]"
)
# What follows a title's question or exclamation when the title goes on: a capitalised
# sentence of words with no digit, not a venue's ("In", "Proceedings", "arXiv"), ended by a
# period and more of the entry ("Real or fake? Learning to discriminate machine from human
# generated text. arXiv, 2019.").
_SUBTITLE = re.compile(
    r"\s+(?!(?:In|Proceedings|Advances|Transactions|Journal|Technical|Preprint|URL|Available)\b)"
    r"[A-Z][^\d.?!]{10,}\.\s+\S"
)
# A sentence's end inside a title or venue: a period, "?" or "!" and a space.
_SENTENCE_END = re.compile(r"(?<=[^\s.])[.?!](?=\s|$)")
# Initials: "K.", "M.-W.", "W.-t.", "P.-S.,", and the "u." of "L. u. Kaiser".
_INITIALS = re.compile(r"^(?:[A-Z]\.-?)+(?:[A-Za-z]\.)?,?$|^[a-z]\.,?$")
_LEADING_IN = re.compile(r"^(?:In\s*:?\s+)", re.I)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_VENUE_TAIL = re.compile(
    rf"(?:,?\s*(?:pages|pp\.|vol\.|volume)\b.*|,?\s*(?:{_MONTH}\s+)?(?:19|20)\d\d[a-z]?\.?$)", re.I
)
# A year the title's sentence ran on to ("... vision algorithms, 2008."): no part of it.
_TRAILING_YEAR = re.compile(rf",\s*(?:{_MONTH}\s+)?(?:19|20)\d\d[a-z]?\s*$", re.I)
_URL = re.compile(r"\bURL\b.*|https?:\s*\S+", re.I)
_MIN_TITLE_LETTERS = 4
_MAX_NAME_WORDS = 5
# A surname after an initial: up to this many words ("Van Gool"), the last ending the name.
_MAX_SURNAME_WORDS = 3
_SURNAME_END = r"(?:[a-z]{1,2}['\u2019])?[A-Z][\w'\u2019\-]*[,.]"  # "Hinton.", "d'Autume,"
# "Bengio, Y. Deep Learning ...": surnames first, so a word after initials is the title's.
_SURNAME_FIRST = re.compile(r"^[A-Z][\w'\u2019\-]+,\s+(?:[A-Z]\.\s?)+")
_PARTICLES = frozenset(["van", "von", "der", "den", "de", "da", "dos", "del", "la", "le"])
_NAME_WORDS = _PARTICLES | {"et", "al", "di", "du", "dei", "ter", "zu"}
_MAX_FIELD_CHARS = 500


def read_reference(entry: str) -> Reference | None:
    """The fields of one entry, or None for text that is no reference."""
    text = " ".join(entry.split())
    arxiv = _ARXIV.search(text) or _BARE_ARXIV.search(text)
    doi = _DOI.search(text)
    year = _year(text)
    if year is None and arxiv is None and doi is None:
        return None
    authors, title, venue = _parts(text)
    if sum(char.isalpha() for char in title) < _MIN_TITLE_LETTERS:
        return None
    return Reference(
        title=title[:_MAX_FIELD_CHARS],
        authors=_authors(authors)[:_MAX_FIELD_CHARS],
        year=year,
        venue=venue[:_MAX_FIELD_CHARS],
        arxiv_id=arxiv["id"] if arxiv else "",
        doi=doi["doi"].rstrip(".").lower() if doi else "",
    )


def _year_after_authors(text: str) -> re.Match[str] | None:
    """The match of "Authors. 2019. " when what precedes the year is a list of names."""
    found = _YEAR_AFTER_AUTHORS.match(text)
    if found is None:
        return None
    return found if _names_only(found["authors"]) else None


def _names_only(text: str) -> bool:
    """Is the text a list of names: short ones, of capitalised words, initials and
    particles ("van den Oord", "et al."), one other word at most (a name a PDF drew
    apart: "Tomas Ko cisk y")?"""
    names = re.split(r",|\band\b|&", text)
    return all(
        len(name.split()) <= _MAX_NAME_WORDS
        and sum(_other_word(word) for word in name.split()) <= 1
        for name in names
    )


def _other_word(word: str) -> bool:
    """A word of two letters or more that is neither capitalised nor a particle."""
    return len(word) > 1 and not (word[0].isupper() or word.rstrip(".") in _NAME_WORDS)


def _year(text: str) -> int | None:
    """The year after the authors, else the last year the entry writes (outside ids)."""
    found = _year_after_authors(text)
    if found is not None:
        return int(found["year"])
    without_ids = _DOI.sub(" ", _ARXIV.sub(" ", _URL.sub(" ", text)))
    years = YEAR.findall(without_ids)
    return int(years[-1]) if years else None


def _parts(text: str) -> tuple[str, str, str]:
    """(authors, title, venue) of an entry."""
    found = _year_after_authors(text)
    quoted = _QUOTED_TITLE.match(text)
    if found is not None:
        authors, rest = found["authors"], text[found.end() :]
    elif quoted is not None and _names_only(quoted["authors"]):
        return (
            quoted["authors"].strip(" .,"),
            _clean_title(quoted["title"]),
            _venue(text[quoted.end() :]),
        )
    else:
        cut = _authors_end(text)
        authors, rest = text[:cut], text[cut:].lstrip(". ")
    title, venue = _first_sentence(rest)
    return authors.strip(" .,"), title, _venue(venue)


def _authors_end(text: str) -> int:
    """Where the author list ends: at the first period after a word that is no initial,
    or after initials that no further name follows."""
    words = list(re.finditer(r"\S+", text))
    for index, word in enumerate(words):
        token = word.group()
        if not token.endswith("."):
            continue
        following = [w.group() for w in words[index + 1 : index + 2 + _MAX_SURNAME_WORDS]]
        if (_INITIALS.match(token) or token in {"Jr.", "Sr."}) and _continues_names(
            following, surname_first=_SURNAME_FIRST.match(text) is not None
        ):
            continue
        return word.end()
    return 0


def _continues_names(following: list[str], *, surname_first: bool) -> bool:
    """Do the words after an initial still belong to the author list: "and", a name's
    end ("Xu,", "Hinton."), more initials, or, where initials come before surnames, a
    surname ("S. Gidaris and N.", "L. Van Gool, C. K.")?"""
    word = following[0] if following else ""
    if word in {"and", "&"} or word.endswith((",", ".")) or _INITIALS.match(word):
        return True
    if surname_first:
        return False
    for index, name in enumerate(following[:_MAX_SURNAME_WORDS]):
        if not (name[0].isupper() or name in _PARTICLES) or not name[-1].isalpha():
            return False
        after = following[index + 1] if index + 1 < len(following) else ""
        if after in {"and", "&", "et"} or re.fullmatch(_SURNAME_END, after):
            return True
    return False


def _first_sentence(text: str) -> tuple[str, str]:
    """The title (up to its sentence's end; a question mark kept) and what follows."""
    for match in _SENTENCE_END.finditer(text):
        before = text[: match.start()].rsplit(" ", 1)[-1]
        if len(before) == 1 and before.isupper():
            continue  # an initial inside the title ("Vitamin C. ...") is rare; a name's is not
        if match.group() in "?!" and _SUBTITLE.match(text, match.end()):
            continue  # "Real or fake? Learning to discriminate ... text. arXiv, 2019."
        title = text[: match.end()] if match.group() in "?!" else text[: match.start()]
        return _clean_title(title), text[match.end() :].strip()
    return _clean_title(text), ""


def _clean_title(title: str) -> str:
    title = _TRAILING_YEAR.sub("", _URL.sub("", title))
    return " ".join(title.strip(" ,.;:\u201c\u201d\"'").split())


def _venue(text: str) -> str:
    venue = _URL.sub("", _DOI.sub("", text))
    venue = _LEADING_IN.sub("", venue.strip())
    venue = _ARXIV.sub("", venue) if venue.lower().startswith(("arxiv", "corr")) else venue
    venue = _VENUE_TAIL.sub("", venue)
    return " ".join(venue.strip(" ,.;:").split())


def _authors(text: str) -> str:
    """The names as "A, B, C": "and" and "&" become commas, "et al." is kept."""
    names = re.split(r",\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*", text)
    return ", ".join(name.strip(" .") for name in names if name.strip(" ."))
