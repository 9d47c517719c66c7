"""arXiv references written outside brackets, in the prose of a streamed answer.

A model that was told to cite `[arXiv:<id>]` may still write "as arXiv:2203.12533
shows", "(arXiv 2203.12533v2)", a link `https://arxiv.org/abs/2203.12533` or the DOI
`10.48550/arXiv.2203.12533`. Each of these names a paper as surely as a bracket does,
so each is judged like one: a reference to a source becomes that source's citation (the
dock draws a chip for it), and one to a paper that is not a source is made up: it is
removed, with the space before it and the parentheses around it, and its id is listed.
An id written alone ("2203.12533 shows", "hep-th/9901001") is judged when it reads as
one (`chat.rag.citations.ids.NUMBERED_ID`, or any `BARE_ID` with a bracket right before
or after it: "[see 9999.99999]"): a source's passes unchanged, any other is made up.

The target of a Markdown link is left to the dock, which judges links as links.
`BareReferences` reads the citation guard's output (brackets are already judged; a
reference inside `[...]` is never read again here). It reads text folded as
`chat.rag.citations.confusables.fold_char` folds it, so look-alike letters and zero-width
characters hide nothing, and holds back text from where a reference could still begin
until it either completes or cannot be one. A number arXiv would not have given
("9999.99999 parameters", "1234.5678") is left alone: too many numbers look like ids.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chat.rag.citations.confusables import fold_char
from chat.rag.citations.ids import ARCHIVES, BARE_ID, BARE_ID_PREFIX, NUMBERED_ID
from chat.rag.sources import Source
from ingest.index.records import normalise_paper_id

_ID = r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[a-z]{2})?/\d{7})(?:v\d*)?(?![\w/])"
_HEAD = (
    r"(?:(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/"
    r"|(?:https?://)?(?:dx\.)?(?:doi\.org/)?10\.48550/arxiv\."
    r"|arxiv\s*:?\s*)"
)
_URL_HEADS = [
    f"{scheme}{host}arxiv.org/{kind}"
    for scheme in ("", "http://", "https://")
    for host in ("", "www.", "export.")
    for kind in ("abs/", "pdf/")
]
_DOI_HEADS = [
    f"{scheme}{host}10.48550/arxiv."
    for scheme in ("", "http://", "https://")
    for host in ("", "doi.org/", "dx.doi.org/")
]
# The heads as written in full, one of whose beginnings a text may end with.
_HEADS = (*_URL_HEADS, *_DOI_HEADS, "arxiv:", "arxiv ")
# What a reference begins with (in either case): the parenthesis around it, a head's first
# character, an id's (a digit, an archive's first letter). Looked for before all the rest.
_FIRSTS = {"(", *(head[0] for head in _HEADS), *"0123456789", *(name[0] for name in ARCHIVES)}
# A whole reference, with the parentheses around it if it stands in them; not the target
# of a Markdown link ("[the abstract](https://arxiv.org/abs/...)"), which is a link the
# dock judges as links are judged, not a citation. Or an id written alone (`bare`).
_REFERENCE = re.compile(
    rf"(?=[{re.escape(''.join(sorted(_FIRSTS)))}])"
    r"(?<![\w/.@-])(?<!\]\()(?:(?:(?<!\])(?P<open>\(\s*))?"
    + _HEAD
    + _ID
    + r"(?:\.pdf)?(?(open)\s*\))"
    + rf"|{BARE_ID})",
    re.IGNORECASE,
)
_NUMBERED = re.compile(NUMBERED_ID, re.IGNORECASE)
# A bracket right before or after an id written alone: the id is cited, not a number.
_OPENED = re.compile(r"[\[(]\s*$")
_CLOSED = re.compile(r"\s*[\])]")
# A head written out, with the start of an id after it, or the start of an id written
# alone (and the spaces after it, before a bracket may come): a reference still arriving.
_ARRIVING = re.compile(
    r"\(?\s*" + _HEAD + r"[\w./\-]*\s*\)?" + rf"|{BARE_ID_PREFIX}", re.IGNORECASE
)
# Marks that wrap a link or an id, removed with a made-up one.
_WRAPPERS = {"<": ">", "{": "}"}
# Where a reference can begin: a head, or an id written alone (a digit, an archive).
_HEAD_LETTERS = frozenset("ahd1we(0123456789cgmnpqs<{")
_HEAD_BEGINNINGS = frozenset(head[:end] for head in _HEADS for end in range(len(head) + 1))
# A character of `_HEAD_LETTERS` (in either case) that no part of a word, a path or an
# address stands right before: where a reference still arriving may begin.
_HEAD_START = re.compile(
    r"(?<![\w/.@-])["
    + re.escape("".join(sorted(_HEAD_LETTERS | {c.upper() for c in _HEAD_LETTERS})))
    + "]"
)
# A head that may hold white space ("arXiv : 2203.12533"), and a text up to its last one.
_ARXIV = re.compile("arxiv", re.IGNORECASE)
_THROUGH_LAST_SPACE = re.compile(r".*\s", re.DOTALL)
# How `fold_char` folds each ASCII character (white space to " ", controls to nothing).
_ASCII_FOLDS = str.maketrans({chr(code): fold_char(chr(code)) for code in range(128)})
# How far back a reference still arriving may begin.
_LONGEST = 96
# Characters already emitted that a reference's start is read against ("](", "[ ").
_CONTEXT = 16
_SPACES = " \t"


@dataclass
class _Folded:
    """Text as it reads, with the raw index each folded character comes from."""

    text: str
    owners: Sequence[int]

    @classmethod
    def of(cls, raw: str) -> _Folded:
        if raw.isascii():
            text = raw.translate(_ASCII_FOLDS)
            if len(text) == len(raw):
                return cls(text, range(len(raw)))
        pieces = list(map(fold_char, raw))
        text = "".join(pieces)
        if len(text) == len(raw) and "" not in pieces:
            return cls(text, range(len(raw)))  # each character folds to one
        owners: list[int] = []
        for index, piece in enumerate(pieces):
            owners.extend([index] * len(piece))
        return cls(text, owners)

    def raw_index(self, folded_index: int, raw_length: int) -> int:
        return self.owners[folded_index] if folded_index < len(self.owners) else raw_length

    def at(self, raw_index: int) -> int:
        """The first folded character from `raw_index` of the raw text on."""
        return bisect_left(self.owners, raw_index)


class BareReferences:
    """Judges prose references in streamed text; `feed` each piece, then `flush` once.

    `find` gives the source with a paper id, if any. `missing` collects, in the order
    found, the ids referred to that no source has.
    """

    def __init__(self, find: Callable[[str], Source | None]) -> None:
        self._find = find
        self.missing: list[str] = []
        self._pending = ""
        self._context = ""

    def feed(self, text: str, followed_by: str = "") -> str:
        """The text safe to emit now; `followed_by` is what is known to come next (a space
        the caller holds back), so a word it ends is not taken for an id's beginning."""
        self._pending += text
        return self._drain(final=False, then=followed_by)

    def flush(self) -> str:
        return self._drain(final=True)

    def _drain(self, *, final: bool, then: str = "") -> str:
        # The last characters emitted stay in view: "](" before a link is read as such.
        whole = self._context + self._pending
        folded = _Folded.of(whole)
        start = len(self._context)
        out = []
        for match in _REFERENCE.finditer(folded.text, folded.at(start)):
            if not final and _ARRIVING.fullmatch(folded.text[match.start() :] + then):
                break  # more may follow that belongs to it (digits, ".pdf", ")", "]")
            if _is_chip(folded.text, match) or not _reads_as_id(folded.text, match):
                continue
            wrapped = folded.text[match.start() - 1 : match.start()] in _WRAPPERS
            if wrapped and not final and match.end() == len(folded.text):
                break  # its closing ">" or "}" may come next, to go with it
            begin = folded.raw_index(match.start(), len(whole))
            end = folded.raw_index(match.end(), len(whole))
            before = whole[start:begin]
            replacement = self._judge(match["id"] or match["bare"])
            if replacement is not None and (
                match["bare"] is not None or folded.text[match.start() - 1 : match.start()] == "["
            ):
                # A source's id written alone, or in a bracket left open, stays as written.
                replacement = whole[begin:end]
            else:
                opener = whole[begin - 1 : begin] if begin > start else ""
                if opener in _WRAPPERS and whole[end : end + 1] == _WRAPPERS[opener]:
                    # The angle brackets or braces around it go with it: "<arXiv:...>".
                    before, end = before[:-1], end + 1
            if replacement is None:
                # Made up: out with the space before it (the one after it stays).
                before, replacement = before.rstrip(_SPACES), ""
            out.append(before + replacement)
            start = end
        held = 0 if final else _arriving(whole, folded, start, then)
        out.append(whole[start : len(whole) - held])
        self._pending = whole[len(whole) - held :]
        emitted = "".join(out)
        self._context = (self._context + emitted)[-_CONTEXT:]
        return emitted

    def _judge(self, raw_id: str) -> str | None:
        """The citation a referred-to id becomes, or None when no source has it."""
        paper_id = normalise_paper_id(raw_id)
        source = self._find(paper_id)
        if source is None:
            if paper_id not in self.missing:
                self.missing.append(paper_id)
            return None
        return source.citation


def _is_chip(text: str, match: re.Match[str]) -> bool:
    """Whether `match` is the inside of a citation the guard has emitted (`[arXiv:<id>]`)."""
    return text[match.start() - 1 : match.start()] == "[" and text.startswith("]", match.end())


def _reads_as_id(text: str, match: re.Match[str]) -> bool:
    """Whether `match` names a paper: written after arXiv or a link's head, or alone but
    numbered as arXiv numbers papers or with a bracket right before or after it."""
    if match["bare"] is None or _NUMBERED.fullmatch(match[0]):
        return True
    return bool(_OPENED.search(text, 0, match.start()) or _CLOSED.match(text, match.end()))


def _arriving(text: str, folded: _Folded, start: int, then: str = "") -> int:
    """How many characters at the end of `text` (`folded`: it folded), from `start` on
    (with the spaces before them), could still grow into a reference when `then` follows
    them: 0 when none could."""
    first = _past_words(folded.text + then, max(len(folded.text) - _LONGEST, folded.at(start)))
    for head in _HEAD_START.finditer(folded.text, first):
        index = head.start()
        candidate = folded.text[index:] + then
        bare = candidate.lstrip("(<{ ").lower()
        if _ARRIVING.fullmatch(candidate) or bare in _HEAD_BEGINNINGS:
            begin = folded.raw_index(index, len(text))
            if begin > start and text[begin - 1] in _WRAPPERS:
                begin -= 1  # "<" or "{" waits with what it may wrap
            begin = max(start, len(text[:begin].rstrip(_SPACES)))
            return len(text) - begin
    return 0


def _past_words(tail: str, first: int) -> int:
    """Where, from `first` on, a reference still arriving at the end of `tail` may begin.
    Unless "arxiv" is written (a head may hold white space: "arXiv : 2203.1"), what may
    still grow into a reference holds none but in the "(", "<", "{" and spaces it opens
    with: it begins after the last white space or in such a run right before it, and
    "the method " holds nothing back."""
    if _ARXIV.search(tail, first) is not None:
        return first
    last = _THROUGH_LAST_SPACE.match(tail, first)
    if last is None:
        return first
    begin = last.end() - 1
    while begin > first and (tail[begin - 1] in "(<{" or tail[begin - 1].isspace()):
        begin -= 1
    return begin
