"""Citations in a streamed answer: checked against the sources, normalised, kept whole.

`CitationGuard` sits between the model's stream and the client. Every
bracket that is a citation comes out in the one form answers use,
`CITATION_PATTERN` (the dock draws a chip for that form only):

- `[arXiv:2203.12533]`, `[arXiv:2203.12533v2]`, `[arxiv: 2203.12533]`, a bare id
  `[2203.12533]` and old-style `[arXiv:hep-th/9901001]` become `[arXiv:<id>]` (no
  version) when the id is a source's; `[doc:<id>]` likewise;
- numbers `[1]`, `[2, 3]`, `[1][2]`, `[1-2]` name sources by their number and
  become each source's citation (`[arXiv:a][arXiv:b]`);
- several in one bracket (`[arXiv:a, arXiv:b]`, `[1; arXiv:a]`) are split;
- a parenthesis that holds ids and nothing else (`(2203.12533)`, `(arXiv:a; b)`) is
  judged like a bracket; one with anything more (`(1)`, `(arXiv:a, Section 3)`) is text.

Brackets are judged on their folded text (`fold_char`: NFKC, so fullwidth
brackets and colons count; brackets of other shapes such as `\u3010 \u3011`,
`\u3014 \u3015` or `\u27e6 \u27e7` read as `[ ]`; no format characters or combining
marks, so a zero-width space hides nothing; letters that look Latin read as Latin, so
a Cyrillic a (U+0430) in arXiv is still arXiv; digits of any script as digits; any
white space, a line break too, as a space and runs of it as one). A bracket naming
`arxiv:`, `doc:` or an id is citation-shaped: everything in it that is no source's
citation (`[arXiv:9999.99999?]`, an unknown id) is made up. A made-up
citation is removed, with the space before it, and its name is listed in
`dropped` (an id, or `[n]` for a number out of range).
Brackets that are not citations (`[a]`, `[CLS]`, `[0, 1)`, `[0, 1]`, a
year like `[2023]`) pass unchanged. Since a citation can arrive split over
chunks, text from a `[` or `(` that could still begin one is held back until it
either closes (within `MAX_CITATION` folded characters, `MAX_HELD` raw ones)
or cannot be one, and trailing spaces are held until the next visible
character. A citation-shaped bracket still open at that bound is made up too,
and what follows it up to its closing bracket (or the line's end) is removed with it.
A line break inside a bracket is read as a space while the bracket can still be a
citation (`[arXiv:\n9999.99999]`); one that stops being one after a line break
(`[arXiv:9999.99999\nThe method`) is judged as if closed at that line break, and so
is one the stream ends while it still reads as a citation (`[arXiv:9999.99999` is
made up).
Feeding a text in any pieces gives the same output as feeding it whole.
References outside brackets ("arXiv:2203.12533", an arxiv.org link, a bare id in
prose) are judged after the brackets, by `chat.rag.citations.references`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from chat.rag.citations.confusables import fold_char
from chat.rag.citations.ids import BARE_ID, BARE_ID_PREFIX
from chat.rag.citations.references import BareReferences
from chat.rag.sources import Source
from ingest.index.records import normalise_paper_id

MAX_CITATION = 64
MAX_HELD = 1024

# One source's citation exactly as the guard emits it: (kind, id). Written in the syntax
# Python and JavaScript share; the dock is served this very pattern (no other copy).
CITATION_PATTERN = r"\[(arXiv|doc):([A-Za-z0-9][A-Za-z0-9./-]*)\]"
_EMITTED = re.compile(CITATION_PATTERN)

_ITEM = re.compile(
    r"\s*(?:(?P<kind>arxiv|doc)\s*:\s*(?P<id>[\w./\-]+)"
    rf"|{BARE_ID}"
    r"|(?P<first>\d{1,3})(?:\s*[-\u2013]\s*(?P<last>\d{1,3}))?)\s*",
    re.IGNORECASE,
)


def _item_prefix(id_prefix: str) -> re.Pattern[str]:
    """Every prefix of an `_ITEM` whose id after `arxiv:` or `doc:` begins as `id_prefix`
    (and a little more, which only delays a decision)."""
    return re.compile(
        r"\s*(?:\d{1,3}\s*(?:[-\u2013]\s*(?:\d{1,3}\s*)?)?"
        r"|a|ar|arx|arxi|d|do"
        rf"|(?:arxiv|doc)\s*(?::\s*{id_prefix}\s*)?"
        rf"|{BARE_ID_PREFIX}\s*)?",
        re.IGNORECASE,
    )


_ITEM_PREFIX = _item_prefix(r"[\w./\-]*")
# After a line break only what begins an arXiv id goes on a citation: "[arXiv:" then
# "Next." on the next line is a bracket left open, not the id "Next.".
_ITEM_PREFIX_PAST_LINE = _item_prefix(f"{BARE_ID_PREFIX}?")
# An item that names a kind of source or an id, whatever follows: a citation, real or
# made up.
_SHAPED = re.compile(rf"\s*(?:(?:arxiv|doc)\s*:|arxiv\s*\d|{BARE_ID})", re.IGNORECASE)
_SEPARATOR = re.compile(r"[,;]")
# White space around the point of an id after "arXiv:", before its digits go on (or yet come):
# only where there is some, since taking out none changes nothing.
_ID_GAP = re.compile(r"(arxiv\s*:\s*\d{4})(?:\s+\.\s*|\.\s+)(?=\d|$)", re.IGNORECASE)
# What `_name` takes off an item before listing it: its kind, if any (always matches).
_KIND_PREFIX = re.compile(r"\s*(?:(?:arxiv|doc)\s*:?)?", re.IGNORECASE)
# What each bracket that may hold a citation reads as, and what closes it (folded).
_CLOSERS = {"[": "]", "(": ")"}
# The characters that may read as an opener: the ASCII ones that fold to one, and any other.
_MAYBE_OPENER = re.compile(
    "["
    + re.escape("".join(chr(code) for code in range(128) if fold_char(chr(code)) in _CLOSERS))
    + r"]|[^\x00-\x7f]"
)
_SPACES = " \t"
# Characters after which no space is wanted where a citation was removed.
_NO_SPACE_BEFORE = ".,;:!?)\n\r"


@dataclass(frozen=True)
class _Scan:
    """How far a pending bracket is read: raw characters from its opener, their folded
    text, and the last line break it still read as a citation at (index, folded text)."""

    read: int = 1
    folded: str = ""
    line_end: tuple[int, str] | None = None


@dataclass
class _Cited:
    """What one bracket cites: sources found and names that match none."""

    sources: list[Source] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


class CitationGuard:
    """Rewrites citations in streamed text; `feed` each piece, then `flush` once."""

    def __init__(self, sources: Sequence[Source]) -> None:
        citable = [source for source in sources if _EMITTED.fullmatch(source.citation)]
        self._by_id = {source.id.lower(): source for source in citable}
        self._by_number = {source.n: source for source in citable}
        self.citations: list[str] = []
        self.dropped: list[str] = []
        self._pending = ""  # from a `[` that may still begin a citation
        self._held = ""  # trailing spaces not yet emitted
        self._skipping = 0  # raw characters still to remove after a citation cut at the bound
        self._skip_to = "]"  # the closing bracket that ends what is skipped
        self._scan = _Scan()  # how far the pending bracket is read
        self._after_removal = False
        self._emitted = False
        self._prose = BareReferences(lambda paper_id: self._by_id.get(paper_id.lower()))

    def feed(self, text: str) -> str:
        """The text that is safe to emit now."""
        self._pending += text
        out = self._drain(final=False)
        return self._counted(self._prose.feed(out, followed_by=self._held[:1]))

    def flush(self) -> str:
        """The rest, at the end of the stream."""
        out = self._drain(final=True)
        tail = "" if self._after_removal else self._held
        self._held, self._after_removal, self._skipping = "", False, 0
        return self._counted(self._prose.feed(out + tail) + self._prose.flush())

    def _counted(self, text: str) -> str:
        """`text`, once its citations are listed (in the order they are emitted: every
        citation in the output is in the emitted form, whichever stage made it) and so
        are the prose references found made up."""
        for match in _EMITTED.finditer(text):
            source = self._by_id.get(match[2].lower())
            if source is not None and source.id not in self.citations:
                self.citations.append(source.id)
        for name in self._prose.missing:
            if name not in self.dropped:
                self.dropped.append(name)
        return text

    def _drain(self, *, final: bool) -> str:
        text, out = self._pending, []
        start = self._skip(text, 0)
        while (bracket := _opener(text, start)) is not None:
            out.append(self._visible(text[start:bracket]))
            verdict = self._judge(text, bracket, final)
            if verdict is None:
                self._pending = text[bracket:]
                return "".join(out)
            end, cited = verdict
            if cited is None:
                out.append(self._visible(text[bracket]))
                start = bracket + 1
            else:
                out.append(self._replace(cited))
                start = self._skip(text, end)
        out.append(self._visible(text[start:]))
        self._pending = ""
        return "".join(out)

    def _judge(self, text: str, bracket: int, final: bool) -> tuple[int, _Cited | None] | None:
        """For the `[` or `(` at `bracket`: where it ends and what it cites (None: not a
        citation). None when more text is needed to tell; the next call goes on reading
        from there."""
        opener = fold_char(text[bracket])
        closer = _CLOSERS[opener]
        scan = self._scan if bracket == 0 else _Scan()
        self._scan = _Scan()
        folded, line_end = scan.folded, scan.line_end
        limit = min(len(text), bracket + MAX_HELD)
        for index in range(bracket + scan.read, limit):
            piece = fold_char(text[index])
            if closer in piece:
                return index + 1, self._parse(folded + piece[: piece.index(closer)], opener)
            if text[index] in "\r\n" and (line_end is None or line_end[1] != folded.strip()):
                line_end = (index, folded.strip())
            folded = (folded + piece).replace("  ", " ")
            if line_end is not None and not _could_begin(folded, _ITEM_PREFIX_PAST_LINE):
                return self._unclosed(line_end[1], bracket, line_end[0], opener)
            if _hopeless(folded, opener):
                return bracket, None
            if len(folded) >= MAX_CITATION - 1:
                return self._cut(folded, bracket, index + 1, closer)
        if limit == bracket + MAX_HELD:
            return self._cut(folded, bracket, limit, closer)
        if final:
            return self._unclosed(folded, bracket, limit, opener)
        self._scan = _Scan(limit - bracket, folded, line_end)
        return None

    def _cut(self, folded: str, bracket: int, end: int, closer: str) -> tuple[int, _Cited | None]:
        """A bracket still open at the bound: made up if citation-shaped, else plain text."""
        if not _is_shaped(folded):
            return bracket, None
        self._skipping, self._skip_to = MAX_HELD, closer
        return end, _Cited(missing=_names(folded))

    def _unclosed(
        self, folded: str, bracket: int, end: int, opener: str
    ) -> tuple[int, _Cited | None]:
        """A bracket a line break or the stream ends before its closer: while it still
        reads as a citation, judged as if closed there (`[arXiv:9999.99999` is made up),
        else plain text (`[arXiv: see below`)."""
        if _is_shaped(folded) and _could_begin(folded):
            return end, self._parse(folded, opener)
        return bracket, None

    def _skip(self, text: str, start: int) -> int:
        """Past the rest of a citation cut at the bound: through its closing bracket, or
        to the line's end."""
        if not self._skipping:
            return start
        stop = min(len(text), start + self._skipping)
        for index in range(start, stop):
            if text[index] in "\r\n":
                self._skipping = 0
                return index
            if self._skip_to in fold_char(text[index]):
                self._skipping = 0
                return index + 1
        self._skipping -= stop - start
        return stop

    def _replace(self, cited: _Cited) -> str:
        for name in cited.missing:
            if name not in self.dropped:
                self.dropped.append(name)
        if not cited.sources:
            self._after_removal = True
            return ""
        return self._visible("".join(source.citation for source in cited.sources))

    def _parse(self, inner: str, opener: str) -> _Cited | None:
        """What `[inner]` or `(inner)` cites (`inner` folded), or None if it is not a
        citation at all (a parenthesis is one only when it holds nothing but ids)."""
        items = _SEPARATOR.split(_closed_gaps(inner))
        shaped = any(_SHAPED.match(item) for item in items)
        cited = _Cited()
        for item in items:
            match = _ITEM.fullmatch(item)
            if match is not None and match["kind"] is not None:
                self._resolve_id(match["kind"].lower(), match["id"], cited)
            elif match is not None and match["bare"] is not None:
                self._resolve_id("arxiv", match["bare"], cited)
            elif opener == "(":
                return None
            elif match is not None and self._resolve_numbers(
                int(match["first"]), match["last"], cited
            ):
                continue
            elif not shaped:
                return None
            elif item.strip():
                cited.missing.append(_name(item))
        unique = list(dict.fromkeys(cited.sources))
        return _Cited(unique, cited.missing)

    def _resolve_id(self, kind: str, raw: str, cited: _Cited) -> None:
        name = normalise_paper_id(raw) if kind == "arxiv" else raw
        source = self._by_id.get(name.lower())
        if source is None:
            cited.missing.append(name)
        else:
            cited.sources.append(source)

    def _resolve_numbers(self, first: int, last_text: str | None, cited: _Cited) -> bool:
        """Add sources numbered `first`..`last`; False if this is no source numbering."""
        last = int(last_text) if last_text is not None else first
        if first == 0 or last < first:
            return False
        for number in range(first, last + 1):
            source = self._by_number.get(number)
            if source is None:
                cited.missing.append(f"[{number}]")
            else:
                cited.sources.append(source)
        return True

    def _visible(self, piece: str) -> str:
        """`piece` as it may be emitted now; trailing spaces wait for what follows."""
        if self._after_removal:
            rest = piece.lstrip(_SPACES)
            self._held = self._held or piece[: len(piece) - len(rest)]
            if not rest:
                return ""
            self._after_removal = False
            if rest[0] in _NO_SPACE_BEFORE or not self._emitted:
                self._held = ""
            piece = rest
        body = piece.rstrip(_SPACES)
        if not body:
            self._held += piece
            return ""
        out = self._held + body
        self._held = piece[len(body) :]
        self._emitted = True
        return out


def _opener(text: str, start: int) -> int | None:
    """Where the first character from `start` on that reads as `[` or `(` stands."""
    while (found := _MAYBE_OPENER.search(text, start)) is not None:
        if fold_char(found[0]) in _CLOSERS:
            return found.start()
        start = found.end()
    return None


def _hopeless(inner: str, opener: str) -> bool:
    """Whether `[inner` or `(inner` can no longer be a citation, whatever follows: it
    could begin none and (a parenthesis holds only ids) is no citation-shaped bracket.
    Read the same whether the text has arrived or not, so that pieces change nothing."""
    return not _could_begin(inner) and (opener == "(" or not _is_shaped(inner))


def _is_shaped(inner: str) -> bool:
    """Whether `[inner` names a kind of source (`arxiv:`, `doc:`): a citation, real or not."""
    return any(_SHAPED.match(item) for item in _SEPARATOR.split(inner))


def _names(inner: str) -> list[str]:
    return [_name(item) for item in _SEPARATOR.split(inner) if item.strip()]


def _name(item: str) -> str:
    """How a made-up item of a citation-shaped bracket is listed in `dropped`."""
    prefix = _KIND_PREFIX.match(item)
    rest = item[prefix.end() if prefix else 0 :].strip()
    if not rest:
        return item.strip()[:MAX_CITATION]
    return normalise_paper_id(rest)[:MAX_CITATION]


def _closed_gaps(inner: str) -> str:
    """`inner` with the white space inside an id after `arXiv:` taken out: a line break or
    spaces around its point ("arxiv:9999.\n99999", "arxiv:9999 .99999") do not split it."""
    if _ID_GAP.search(inner) is None:
        return inner  # the usual case, told without reading a replacement's template
    return _ID_GAP.sub(r"\1.", inner)


def _could_begin(inner: str, item_prefix: re.Pattern[str] = _ITEM_PREFIX) -> bool:
    """Whether `[inner` could still grow into a citation (its last item as `item_prefix`)."""
    *complete, last = _SEPARATOR.split(_closed_gaps(inner))
    if any(_ITEM.fullmatch(item) is None for item in complete):
        return False
    return item_prefix.fullmatch(last) is not None
