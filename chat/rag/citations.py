"""Citations in a streamed answer: checked against the sources, normalised, kept whole.

`CitationGuard` sits between the model's stream and the client. Every
bracket that is a citation comes out in the one form answers use:

- `[arXiv:2203.12533]`, `[arXiv:2203.12533v2]`, `[arxiv: 2203.12533]` and
  old-style `[arXiv:hep-th/9901001]` become `[arXiv:<id>]` (no version) when
  the id is a source's; `[doc:<id>]` likewise;
- numbers `[1]`, `[2, 3]`, `[1][2]`, `[1-2]` name sources by their number and
  become each source's citation (`[arXiv:a][arXiv:b]`);
- several in one bracket (`[arXiv:a, arXiv:b]`, `[1; arXiv:a]`) are split.

A citation naming no source is removed, with the space before it, and its
name is listed in `dropped` (an id, or `[n]` for a number out of range).
Brackets that are not citations (`[a]`, `[CLS]`, `[0, 1)`, `[0, 1]`, a
year like `[2023]`) pass unchanged. Since a citation can arrive split over
chunks, text from a `[` that could still begin one is held back until it
either closes (within `MAX_CITATION` characters) or cannot be one, and
trailing spaces are held until the next visible character. Feeding a text
in any pieces gives the same output as feeding it whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from chat.rag.sources import Source
from ingest.index.records import normalise_paper_id

MAX_CITATION = 64

_ITEM = re.compile(
    r"\s*(?:(?P<kind>arxiv|doc)\s*:\s*(?P<id>[\w./\-]+)"
    r"|(?P<first>\d{1,3})(?:\s*[-\u2013]\s*(?P<last>\d{1,3}))?)\s*",
    re.IGNORECASE,
)
# Every prefix of an `_ITEM` (and a little more, which only delays a decision).
_ITEM_PREFIX = re.compile(
    r"\s*(?:\d{1,3}\s*(?:[-\u2013]\s*(?:\d{1,3}\s*)?)?"
    r"|a|ar|arx|arxi|d|do"
    r"|(?:arxiv|doc)\s*(?::\s*[\w./\-]*\s*)?)?",
    re.IGNORECASE,
)
_SEPARATOR = re.compile(r"[,;]")
_SPACES = " \t"
# Characters after which no space is wanted where a citation was removed.
_NO_SPACE_BEFORE = ".,;:!?)\n\r"


@dataclass
class _Cited:
    """What one bracket cites: sources found and names that match none."""

    sources: list[Source] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


class CitationGuard:
    """Rewrites citations in streamed text; `feed` each piece, then `flush` once."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self._by_id = {source.id.lower(): source for source in sources}
        self._by_number = {source.n: source for source in sources}
        self.citations: list[str] = []
        self.dropped: list[str] = []
        self._pending = ""  # from a `[` that may still begin a citation
        self._held = ""  # trailing spaces not yet emitted
        self._after_removal = False
        self._emitted = False

    def feed(self, text: str) -> str:
        """The text that is safe to emit now."""
        self._pending += text
        return self._drain(final=False)

    def flush(self) -> str:
        """The rest, at the end of the stream."""
        out = self._drain(final=True)
        tail = "" if self._after_removal else self._held
        self._held, self._after_removal = "", False
        return out + tail

    def _drain(self, *, final: bool) -> str:
        text, start, out = self._pending, 0, []
        while (bracket := text.find("[", start)) >= 0:
            out.append(self._visible(text[start:bracket]))
            verdict = self._judge(text, bracket, final)
            if verdict is None:
                self._pending = text[bracket:]
                return "".join(out)
            closing, cited = verdict
            if cited is None:
                out.append(self._visible("["))
                start = bracket + 1
            else:
                out.append(self._replace(cited))
                start = closing + 1
        out.append(self._visible(text[start:]))
        self._pending = ""
        return "".join(out)

    def _judge(self, text: str, bracket: int, final: bool) -> tuple[int, _Cited | None] | None:
        """For the `[` at `bracket`: its `]` and what it cites (None: not a citation).

        None when more text is needed to tell.
        """
        window = text[bracket + 1 : bracket + MAX_CITATION]
        close = window.find("]")
        if close >= 0:
            return bracket + 1 + close, self._parse(window[:close])
        if final or len(text) - bracket >= MAX_CITATION or not _could_begin(window):
            return bracket, None
        return None

    def _replace(self, cited: _Cited) -> str:
        for name in cited.missing:
            if name not in self.dropped:
                self.dropped.append(name)
        for source in cited.sources:
            if source.id not in self.citations:
                self.citations.append(source.id)
        if not cited.sources:
            self._after_removal = True
            return ""
        return self._visible("".join(source.citation for source in cited.sources))

    def _parse(self, inner: str) -> _Cited | None:
        """What `[inner]` cites, or None if it is not a citation at all."""
        cited = _Cited()
        for item in _SEPARATOR.split(inner):
            match = _ITEM.fullmatch(item)
            if match is None:
                return None
            if match["kind"] is not None:
                self._resolve_id(match["kind"].lower(), match["id"], cited)
            elif not self._resolve_numbers(int(match["first"]), match["last"], cited):
                return None
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


def _could_begin(inner: str) -> bool:
    """Whether `[inner` could still grow into a citation."""
    *complete, last = _SEPARATOR.split(inner)
    if any(_ITEM.fullmatch(item) is None for item in complete):
        return False
    return _ITEM_PREFIX.fullmatch(last) is not None
