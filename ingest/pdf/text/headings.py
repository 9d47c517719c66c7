"""Section headings of a paper, found line by line in reading order.

`HeadingTracker` decides which lines are headings: named ones ("Abstract",
"References"), numbered ones that continue the document's numbering, and
appendix labels. `continues_title` tells whether a numbered heading wrapped
onto the next line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LABEL_RE = re.compile(
    r"^(?P<label>(?:\d{1,2}|[A-Z]|[IVX]{1,4})(?:\.\d{1,2}){0,3})(?P<dot>\.?)\s+(?P<title>\S.*)$"
)
_REFERENCES = {"references", "bibliography", "references and notes", "literature cited"}
_APPENDIX = {"appendix", "appendices", "supplementary material", "supplementary materials"}
_NAMED = {
    "abstract",
    "acknowledgment",
    "acknowledgments",
    "acknowledgement",
    "acknowledgements",
    "introduction",
    "conclusion",
    "conclusions",
    "related work",
    "discussion",
    "limitations",
    "broader impact",
    "ethics statement",
    "contents",
    "author contributions",
}
_APPENDIX_LABEL_RE = re.compile(r"^(?:Appendix|APPENDIX)\s+[A-Z](?:[:.]?\s+(?P<title>\S.*))?$")
_RUN_IN_RE = re.compile(
    r"^(?P<name>abstract|acknowledge?ments?)(?:\s*[.:\u2014\u2013]\s*|\s+(?=[A-Z]))(?P<rest>\S.*)$",
    re.I,
)
_ROMAN = {
    "I": 1,
    "II": 2,
    "III": 3,
    "IV": 4,
    "V": 5,
    "VI": 6,
    "VII": 7,
    "VIII": 8,
    "IX": 9,
    "X": 10,
}
# Equations, sentences, table-of-contents page numbers, initials, code.
_NOT_IN_TITLE_RE = re.compile(
    r"[=<>|{}\u00d7\u00b1]|\.\s|\s\d+$|^[A-Z]\.\s|\b[A-Z]\.\s?[A-Z]\.|[a-z]\.[a-z]|-$"
)
_MAX_TITLE_CHARS = 90
_MAX_TITLE_WORDS = 14
_MAX_SKIPPING_WORDS = 8


@dataclass(frozen=True)
class Heading:
    title: str  # the heading as printed, label included: "3.2 Attention"
    kind: str  # "numbered", "references", "appendix" or "named"
    rest: str = ""  # text that followed a run-in heading on the same line


class HeadingTracker:
    """Decide, line by line, which lines are section headings.

    Numbered headings must continue the document's numbering (1, 1.1, 1.2, 2,
    then A, A.1, ...), which rules out numbered list items, table rows and
    equation lines that merely look like "3 Results".
    """

    def __init__(self, *, has_abstract: bool = False) -> None:
        # Numbered lines before a document's abstract are affiliations or footnotes.
        self.before_abstract = has_abstract
        self.previous: dict[str, tuple[int, ...]] = {}
        self.dots: dict[tuple[str, bool], str] = {}
        self.roman = False
        self.in_references = False
        self.after_references = False

    def match(self, line: str) -> Heading | None:
        plain = " ".join(line.split())
        heading = self._named(plain)
        if heading is None and not self.before_abstract:
            heading = self._numbered(plain)
        if heading is not None:
            self.in_references = heading.kind == "references"
            self.after_references = self.after_references or self.in_references
            self.before_abstract = self.before_abstract and heading.title.lower() != "abstract"
        return heading

    def _named(self, line: str) -> Heading | None:
        key = line.rstrip(".:").lower()
        if key in _REFERENCES:
            return Heading(line.rstrip(".:"), "references")
        if key in _APPENDIX or _is_appendix_label(line):
            self.previous.setdefault("appendix", ())
            return Heading(line, "appendix")
        if self.in_references or not line[0].isupper():
            return None
        if key in _NAMED:
            return Heading(line.rstrip(".:"), "named")
        run_in = _RUN_IN_RE.match(line)
        if run_in is not None:
            return Heading(run_in["name"], "named", run_in["rest"])
        return None

    def _numbered(self, line: str) -> Heading | None:
        match = _LABEL_RE.match(line)
        if match is None or not _looks_like_title(match["title"], self.in_references):
            return None
        parsed = self._parse_label(match["label"])
        if parsed is None:
            return None
        series, label = parsed
        style = (series, len(label) > 1)
        if self.dots.get(style, match["dot"]) != match["dot"]:
            return None
        # Only a short title may skip a number: a long one is more likely a list item.
        strict = self.in_references or len(match["title"].split()) > _MAX_SKIPPING_WORDS
        if not _follows(self.previous.get(series), label, strict=strict):
            return None
        if series == "numbers" and "appendix" in self.previous:
            return None
        # Appendix letters start after the references or an "Appendix" heading.
        if series == "appendix" and not (self.after_references or "appendix" in self.previous):
            return None
        self.previous[series] = label
        self.dots[style] = match["dot"]
        self.roman = self.roman or series == "roman"
        appendix = series == "appendix" or _is_appendix_title(match["title"])
        return Heading(line, "appendix" if appendix else "numbered")

    def _parse_label(self, label: str) -> tuple[str, tuple[int, ...]] | None:
        head, *tail = label.split(".")
        numbers = tuple(int(part) for part in tail)
        if head.isdigit():
            return None if self.roman else ("numbers", (int(head), *numbers))
        starts_roman = head == "I" and "numbers" not in self.previous
        if head in _ROMAN and not tail and (self.roman or starts_roman):
            return "roman", (_ROMAN[head],)
        if len(head) != 1:
            return None
        letter = ord(head) - ord("A") + 1
        if self.roman and not tail and "roman" in self.previous:
            return "roman", (self.previous["roman"][0], letter)
        return "appendix", (letter, *numbers)


def _is_appendix_label(line: str) -> bool:
    match = _APPENDIX_LABEL_RE.match(line)
    if match is None:
        return False
    return match["title"] is None or _looks_like_title(match["title"], in_references=False)


def _follows(previous: tuple[int, ...] | None, label: tuple[int, ...], *, strict: bool) -> bool:
    """Is `label` a plausible next heading after `previous` (allowing one skipped number)?"""
    if not previous:
        return label in {(0,), (1,), (1, 1)}
    steps = (1,) if strict else (1, 2)
    if label == (*previous, 1):
        return True
    for depth in range(len(previous)):
        for step in steps:
            sibling = (*previous[:depth], previous[depth] + step)
            if label in {sibling, (*sibling, 1)}:
                return True
    return False


def _looks_like_title(title: str, in_references: bool) -> bool:
    words = title.split()
    letters = sum(char.isalpha() for char in title)
    digits_words = sum(any(char.isdigit() for char in word) for word in words)
    if not (title[0].isupper() and words[0][0].isalpha()):
        return False
    if len(title) > _MAX_TITLE_CHARS or len(words) > _MAX_TITLE_WORDS or digits_words > 2:
        return False
    if letters < 3:
        return False
    if title[-1] in ".,;" or _NOT_IN_TITLE_RE.search(title):
        return False
    if letters < 0.7 * len(title.replace(" ", "")):
        return False
    if not in_references:
        return True
    # In a reference list, a line ending in "for" or "of" is a title wrapped mid-phrase
    # ("A Dataset and Evaluation Platform for"), not a heading.
    return "," not in title and len(words) <= 10 and words[-1] not in _SMALL_WORDS


def _is_appendix_title(title: str) -> bool:
    return title.split()[0].lower().rstrip(":.") in {"appendix", "appendices", "supplementary"}


def is_abstract(text: str) -> bool:
    """Is `text` an abstract heading, alone or run in ("Abstract. We study ...")?"""
    plain = text.strip().rstrip(".:").lower()
    return plain == "abstract" or bool(re.match(r"(?i)abstract\s*[.:\u2014\u2013]", text))


def continues_title(title: str, nxt: str) -> bool:
    """Is `nxt` the second line of a wrapped heading ("2 Towards Reducing" / "Covariate Shift")?"""
    words = nxt.split()
    if not words or len(words) > 6 or nxt[-1] in ".,;:" or _LABEL_RE.match(nxt):
        return False
    if any(char.isdigit() for char in nxt) or len(title) + len(nxt) > _MAX_TITLE_CHARS:
        return False
    if sum(char.isalpha() for char in nxt) < 3:
        return False
    if title.isupper():
        return nxt.isupper()
    return all(word[0].isupper() or word in _SMALL_WORDS for word in words) and nxt[0].isupper()


_SMALL_WORDS = frozenset(
    ["a", "an", "and", "for", "in", "of", "on", "the", "to", "with", "via", "vs", "from", "by"]
)
