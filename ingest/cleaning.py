"""Turn raw PDF page texts into cleaned blocks: one per page within each section.

The steps, in order: restore ligature glyphs, NFKC, drop the arXiv stamp,
running headers/footers and page numbers, rejoin words hyphenated across
lines, restore words whose ligature vanished ("e cient"), find section
headings, unwrap lines into paragraphs. `stats` counts what each step did.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass

from ingest.records import Block

# PDFium writes U+FFFE where a line ended in a hyphen; the line break itself is gone.
SOFT_HYPHEN = "\ufffe"
# TeX's OT1 fonts put ff, fi, fl, ffi, ffl at 0x0B-0x0F; without a ToUnicode map
# they come out as these code points, in the private use area or as C0 controls.
_GLYPH_LIGATURES = {0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl"}
_PUA_LIGATURE_RE = re.compile(r"(?<=[A-Za-z])[\ue00b-\ue00f]|[\ue00b-\ue00f](?=[a-z])")
_CONTROL_LIGATURE_RE = re.compile(r"[A-Za-z]*[\x0b-\x0f][A-Za-z]+|[A-Za-z]+[\x0b-\x0f]")
_JUNK_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ue000-\uf8ff\ufeff]")
_WORD_RE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_PAGE_NUMBER_RE = re.compile(r"(?i)^(?:page\s*)?[-\u2013 ]*\d{1,4}[-\u2013 ]*(?:(?:of|/)\s*\d+)?$")
_BROKEN_WORD_RE = re.compile(r"\S*(?:\ufffe\s*|-\n)\S*")
_SOFT_BREAK_RE = re.compile(r"([\w\-]*)\ufffe\s*([^\s\ufffe]*)")
_EDGE_LINES = 3
_MIN_REPEATS = 3
_REPEAT_SHARE = 0.2
_SHORT_LINE_SHARE = 0.8


@dataclass
class _Line:
    page: int
    text: str


def clean_pages(pages: list[str], *, stamp: str = "") -> tuple[list[Block], dict[str, int]]:
    """Clean each page's raw text and cut the document into blocks."""
    stats: Counter[str] = Counter()
    texts = [_normalise(text, stats) for text in pages]
    if stamp and texts and stamp in texts[0]:
        texts[0] = texts[0].replace(stamp, "", 1)
        stats["stamp_lines_dropped"] += 1
    vocabulary = Vocabulary(texts)
    pages_lines = _drop_furniture([text.split("\n") for text in texts], stats)
    lines = [
        _Line(page, line.strip())
        for page, page_lines in enumerate(pages_lines, start=1)
        for line in page_lines
        if line.strip()
    ]
    lines = _join_hyphenation(lines, vocabulary, stats)
    gaps = _ligature_gaps(vocabulary)
    for line in lines:
        line.text = _restore_ligature_gaps(line.text, gaps, stats)
    blocks = _blocks(lines, stats)
    return blocks, dict(stats)


def _normalise(text: str, stats: Counter[str]) -> str:
    text, restored = _restore_glyph_ligatures(text)
    stats["words_ligature_glyph_restored"] += restored
    normal = unicodedata.normalize("NFKC", text)
    if normal != text:
        changed = Counter(text)
        stats["chars_nfkc_normalised"] += sum(
            count for char, count in changed.items() if unicodedata.normalize("NFKC", char) != char
        )
    normal = normal.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    junk = _JUNK_RE.findall(normal)
    stats["chars_junk_dropped"] += len(junk)
    return _JUNK_RE.sub(" ", normal) if junk else normal


def _restore_glyph_ligatures(text: str) -> tuple[str, int]:
    """Map unmapped ligature glyphs inside words back to letters."""
    count = 0

    def pua(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return _GLYPH_LIGATURES[ord(match.group(0)) - 0xE000]

    def control(match: re.Match[str]) -> str:
        nonlocal count
        word = match.group(0)
        fixed = "".join(_GLYPH_LIGATURES.get(ord(char), char) for char in word)
        if fixed.lower() in _COMMON_LIGATURE_WORDS:
            count += 1
            return fixed
        return word

    text = _PUA_LIGATURE_RE.sub(pua, text)
    return _CONTROL_LIGATURE_RE.sub(control, text), count


_COMMON_LIGATURE_WORDS = frozenset(
    [
        "first",
        "field",
        "fields",
        "figure",
        "figures",
        "final",
        "finally",
        "find",
        "finding",
        "findings",
        "fine",
        "fixed",
        "fit",
        "define",
        "defined",
        "definition",
        "specific",
        "significant",
        "significantly",
        "efficient",
        "efficiently",
        "coefficient",
        "coefficients",
        "sufficient",
        "different",
        "difference",
        "differences",
        "difficult",
        "effect",
        "effects",
        "effective",
        "effectively",
        "offer",
        "offers",
        "flow",
        "flows",
        "influence",
        "affine",
        "classifier",
        "classification",
        "confidence",
        "identify",
        "identified",
        "modified",
        "benefit",
        "benefits",
    ]
)


class Vocabulary:
    """Counts of the document's own words, whole and hyphenated, lower-cased."""

    def __init__(self, texts: list[str]) -> None:
        self.words: Counter[str] = Counter()
        self.compounds: Counter[str] = Counter()
        for text in texts:
            # Halves of broken words are no words of their own ("ran" + "dom").
            for token in _WORD_RE.findall(_BROKEN_WORD_RE.sub(" ", text)):
                lower = token.lower()
                if "-" in lower:
                    self.compounds[lower] += 1
                    self.words.update(lower.split("-"))
                else:
                    self.words[lower] += 1

    def join(self, left: str, right: str) -> bool:
        """Should `left` + hyphen break + `right` become one word (True) or keep the hyphen?"""
        head = left.rsplit("-", 1)[-1].lower()
        tail = _WORD_RE.match(right)
        core = tail.group(0).split("-", 1)[0].lower() if tail else ""
        if not head or not core:
            return False
        whole, hyphenated = self.words[head + core], self.compounds[f"{head}-{core}"]
        if whole or hyphenated:
            return whole >= hyphenated
        if "-" in left or "-" in right.strip(".,;:)"):
            return False
        if head[-1].isdigit() or right[0].isupper() or right[0].isdigit():
            return False
        # Two words the document uses on their own ("sequence" + "aligned") form a compound;
        # syllables ("repre" + "sentation") do not.
        if head in _CLOSED_PREFIXES:
            return True
        return not (len(head) > 2 and len(core) > 2 and self.words[head] and self.words[core])


# Words that usually close up with what follows ("overcome", "outperform", "moreover").
_CLOSED_PREFIXES = frozenset(
    ["over", "out", "under", "more", "per", "some", "any", "every", "where", "there", "with"]
)


def _join_hyphenation(
    lines: list[_Line], vocabulary: Vocabulary, stats: Counter[str]
) -> list[_Line]:
    """Rejoin words broken at line ends, inside lines (U+FFFE) and across pages."""

    def soft(match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        joined = vocabulary.join(left, right)
        stats["words_soft_hyphen_joined" if joined else "soft_hyphen_compounds_kept"] += 1
        return f"{left}{right}" if joined else f"{left}-{right}"

    for index, line in enumerate(lines):
        nxt = lines[index + 1] if index + 1 < len(lines) else None
        if nxt is not None and line.text.endswith(SOFT_HYPHEN):
            first, _, nxt.text = nxt.text.partition(" ")
            line.text += first
        elif nxt is not None and _ends_in_word_hyphen(line.text) and nxt.text[:1].islower():
            first, _, nxt.text = nxt.text.partition(" ")
            left = line.text[:-1].rsplit(" ", 1)[-1]
            joined = vocabulary.join(left, first)
            stats["words_hyphen_joined" if joined else "hyphen_compounds_kept"] += 1
            line.text = line.text[:-1] + first if joined else line.text + first
        if SOFT_HYPHEN in line.text:
            line.text = _SOFT_BREAK_RE.sub(soft, line.text)
    return [line for line in lines if line.text.strip()]


def _ends_in_word_hyphen(text: str) -> bool:
    return len(text) > 2 and text.endswith("-") and text[-2].isalpha()


_SUFFIXES = ("", "s", "es", "ly", "ed", "ing", "ation", "ations", "ness", "y")
_LIGATURE_RE = re.compile("ffi|ffl|ff|fi|fl")
_TRAILING_PUNCTUATION = ".,;:)]?!'\""


@dataclass(frozen=True)
class _Gaps:
    """Words whose ligature vanished, leaving a gap: "e cient" -> "efficient"."""

    words: dict[str, str]  # "e cient" -> "efficient"
    tails: dict[str, list[tuple[str, str]]]  # "ciently" -> [("cient", "ly")]


def _ligature_gaps(vocabulary: Vocabulary) -> _Gaps:
    known = set(_COMMON_LIGATURE_WORDS)
    known.update(word for word in vocabulary.words if len(word) > 4 and _LIGATURE_RE.search(word))
    words: dict[str, str] = {}
    for word in known:
        for match in _LIGATURE_RE.finditer(word):
            left, right = word[: match.start()], word[match.end() :]
            # A word that starts with the ligature ("rst") is too often a real word ("less").
            if left and len(right) >= 2 and right not in _SHORT_WORDS:
                words[f"{left} {right}"] = word
    tails: dict[str, list[tuple[str, str]]] = {}
    for key in words:
        stem = key.rsplit(" ", 1)[-1]
        for suffix in _SUFFIXES:
            tails.setdefault(stem + suffix, []).append((stem, suffix))
    return _Gaps(words, tails)


def _restore_ligature_gaps(text: str, gaps: _Gaps, stats: Counter[str]) -> str:
    tokens = text.split()
    if gaps.tails.keys().isdisjoint(token.rstrip(_TRAILING_PUNCTUATION) for token in tokens):
        return text
    out: list[str] = []
    for token in tokens:
        bare = token.rstrip(_TRAILING_PUNCTUATION)
        word = _restore_token(bare, out[-1] if out else "", gaps)
        if word is None:
            out.append(token)
            continue
        stats["words_ligature_gap_restored"] += 1
        out[-1] = word + token[len(bare) :]
    return " ".join(out)


def _restore_token(bare: str, previous: str, gaps: _Gaps) -> str | None:
    """The word that `previous` + gap + `bare` once was, or None."""
    if not previous.isalpha() or previous in _SHORT_WORDS:
        return None
    for stem, suffix in gaps.tails.get(bare, ()):
        word = gaps.words.get(f"{previous} {stem}")
        if word is not None:
            return word + suffix
    return None


_SHORT_WORDS = frozenset(
    [
        "a",
        "an",
        "as",
        "at",
        "be",
        "by",
        "do",
        "go",
        "he",
        "if",
        "in",
        "is",
        "it",
        "me",
        "my",
        "no",
        "of",
        "on",
        "or",
        "so",
        "to",
        "up",
        "us",
        "we",
        "am",
        "are",
        "the",
        "and",
        "for",
        "not",
        "but",
        "can",
        "all",
        "any",
        "one",
        "out",
        "our",
        "its",
        "was",
        "has",
        "had",
        "may",
        "new",
        "two",
        "use",
        "set",
        "see",
        "way",
        "who",
        "low",
        "own",
        "per",
        "end",
        "ends",
        "via",
        "more",
        "most",
        "less",
        "than",
        "then",
        "that",
        "this",
        "they",
        "them",
    ]
)


def _drop_furniture(pages: list[list[str]], stats: Counter[str]) -> list[list[str]]:
    """Drop running headers and footers (repeated modulo digits) and page numbers."""
    pages = [[line for line in lines if line.strip()] for lines in pages]
    threshold = max(_MIN_REPEATS, round(len(pages) * _REPEAT_SHARE))
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_furniture_key(lines[index]) for index in _edges(lines)})
    repeated = {key for key, count in seen.items() if count >= threshold and _has_letters(key)}
    kept_pages: list[list[str]] = []
    for lines in pages:
        drop: set[int] = set()
        for index in _edges(lines):
            if _furniture_key(lines[index]) in repeated:
                stats["header_footer_lines_dropped"] += 1
                drop.add(index)
            elif _PAGE_NUMBER_RE.match(lines[index].strip()):
                stats["page_number_lines_dropped"] += 1
                drop.add(index)
        kept_pages.append([line for index, line in enumerate(lines) if index not in drop])
    return kept_pages


def _edges(lines: list[str]) -> range | list[int]:
    """Indices of the first and last few lines of a page."""
    if len(lines) <= 2 * _EDGE_LINES:
        return range(len(lines))
    return [*range(_EDGE_LINES), *range(len(lines) - _EDGE_LINES, len(lines))]


def _furniture_key(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()).lower())


def _has_letters(key: str) -> bool:
    return sum(char.isalpha() for char in key) >= 4


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
    return not in_references or ("," not in title and len(words) <= 10)


def _is_appendix_title(title: str) -> bool:
    return title.split()[0].lower().rstrip(":.") in {"appendix", "appendices", "supplementary"}


@dataclass
class _Section:
    title: str
    is_references: bool
    lines: list[_Line]


def _blocks(lines: list[_Line], stats: Counter[str]) -> list[Block]:
    has_abstract = any(_is_abstract(line.text) for line in lines if line.page <= 2)
    tracker = HeadingTracker(has_abstract=has_abstract)
    sections = [_Section("", False, [])]
    index = 0
    while index < len(lines):
        line = lines[index]
        heading = tracker.match(line.text)
        if heading is None:
            sections[-1].lines.append(line)
        else:
            title = heading.title
            nxt = lines[index + 1].text if index + 1 < len(lines) else ""
            if heading.kind == "numbered" and _continues_title(title, nxt):
                index += 1
                title = f"{title} {nxt}"
            stats["headings"] += 1
            sections.append(_Section(title, heading.kind == "references", []))
            if heading.rest:
                sections[-1].lines.append(_Line(line.page, heading.rest))
        index += 1
    return [block for section in sections for block in _section_blocks(section)]


def _is_abstract(text: str) -> bool:
    plain = text.strip().rstrip(".:").lower()
    return plain == "abstract" or bool(re.match(r"(?i)abstract\s*[.:\u2014\u2013]", text))


def _continues_title(title: str, nxt: str) -> bool:
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


def _section_blocks(section: _Section) -> list[Block]:
    pages: dict[int, list[str]] = {}
    for line in section.lines:
        pages.setdefault(line.page, []).append(line.text)
    return [
        Block(section.title, page, _unwrap(texts), section.is_references)
        for page, texts in pages.items()
        if any(text.strip() for text in texts)
    ]


def _unwrap(lines: list[str]) -> str:
    """Join a page's lines into paragraphs: a short line that ends a sentence ends one."""
    long_lines = [len(line) for line in lines if len(line) >= 20]
    typical = statistics.median(long_lines) if long_lines else 60.0
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        paragraphs[-1].append(line)
        if line[-1] in '.!?:"\u201d' and len(line) < _SHORT_LINE_SHARE * typical:
            paragraphs.append([])
    return "\n\n".join(" ".join(paragraph) for paragraph in paragraphs if paragraph)
