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
from collections.abc import Sequence
from dataclasses import dataclass

from ingest.index.records import Block
from ingest.pdf.layout.sorting import Extra
from ingest.pdf.text.headings import HeadingTracker, continues_title, is_abstract
from ingest.pdf.text.wordrepair import (
    LigatureGaps,
    Vocabulary,
    join_hyphenation,
    ligature_gaps,
    restore_glyph_ligatures,
    restore_ligature_gaps,
)

_JUNK_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ue000-\uf8ff\ufeff]")
_PAGE_NUMBER_RE = re.compile(r"(?i)^(?:page\s*)?[-\u2013 ]*\d{1,4}[-\u2013 ]*(?:(?:of|/)\s*\d+)?$")
_EDGE_LINES = 3
_MIN_REPEATS = 3
_REPEAT_SHARE = 0.2
_SHORT_LINE_SHARE = 0.8
# A page of a references section lists references when at least this share of its lines
# give a year or start a numbered entry ("[12]", "12."); one of fewer lines, when one does.
_REFERENCE_MARK_RE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)|^\s*\[?\d{1,3}[\].]\s")
_MIN_MARKED_SHARE = 0.05
_MIN_APPENDIX_LINES = 8
# The section of pages after a reference list that list no references.
_UNFOUND_APPENDIX = "Appendix"


@dataclass
class _Line:
    page: int
    text: str


def clean_pages(
    pages: list[str], *, stamp: str = "", extras: Sequence[Extra] = ()
) -> tuple[list[Block], dict[str, int]]:
    """Clean each page's body text and cut the document into blocks, then the extras' blocks."""
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
    texts = join_hyphenation([line.text for line in lines], vocabulary, stats)
    lines = [
        _Line(line.page, text) for line, text in zip(lines, texts, strict=True) if text.strip()
    ]
    gaps = ligature_gaps(vocabulary)
    for line in lines:
        line.text = restore_ligature_gaps(line.text, gaps, stats)
    blocks = _blocks(lines, stats)
    blocks.extend(_extra_blocks(extras, vocabulary, gaps, stats))
    return blocks, dict(stats)


def _extra_blocks(
    extras: Sequence[Extra], vocabulary: Vocabulary, gaps: LigatureGaps, stats: Counter[str]
) -> list[Block]:
    """Captions, tables and footnotes, each cleaned like body text; a table keeps its rows."""
    captions = {(e.page, e.label.split()[-1]) for e in extras if e.label.startswith("Tab")}
    blocks = []
    for extra in extras:
        lines = [line.strip() for line in _normalise(extra.text, stats).split("\n") if line.strip()]
        lines = join_hyphenation(lines, vocabulary, stats)
        lines = [restore_ligature_gaps(line, gaps, stats) for line in lines if line.strip()]
        if not lines:
            continue
        text = "\n".join(lines) if extra.kind == "table" else _unwrap(lines)
        stats[f"{extra.kind}_blocks"] += 1
        blocks.append(Block(_extra_section(extra, captions), extra.page, text, kind=extra.kind))
    return blocks


def _extra_section(extra: Extra, table_captions: set[tuple[int, str]]) -> str:
    """A caption's figure or table label; a table's label when its page has one caption."""
    if extra.label:
        return extra.label
    if extra.kind == "table":
        numbers = sorted(number for page, number in table_captions if page == extra.page)
        return f"Table {numbers[0]}" if len(numbers) == 1 else "Table"
    return "Footnotes"


def _normalise(text: str, stats: Counter[str]) -> str:
    text, restored = restore_glyph_ligatures(text)
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


@dataclass
class _Section:
    title: str
    is_references: bool
    lines: list[_Line]


def _blocks(lines: list[_Line], stats: Counter[str]) -> list[Block]:
    has_abstract = any(is_abstract(line.text) for line in lines if line.page <= 2)
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
            if heading.kind == "numbered" and continues_title(title, nxt):
                index += 1
                title = f"{title} {nxt}"
            stats["headings"] += 1
            sections.append(_Section(title, heading.kind == "references", []))
            if heading.rest:
                sections[-1].lines.append(_Line(line.page, heading.rest))
        index += 1
    return [block for section in sections for block in _section_blocks(section)]


def _section_blocks(section: _Section) -> list[Block]:
    pages: dict[int, list[str]] = {}
    for line in section.lines:
        pages.setdefault(line.page, []).append(line.text)
    if section.is_references:
        return _references_blocks(section.title, pages)
    return [Block(section.title, page, _unwrap(texts)) for page, texts in pages.items()
            if any(text.strip() for text in texts)]  # fmt: skip


def _references_blocks(title: str, pages: dict[int, list[str]]) -> list[Block]:
    """A reference list keeps its lines as printed: where its entries start
    (`ingest/references/`). Its last pages that list no references (an appendix whose
    heading was not found, as in a figure: "Attention Visualizations") are an appendix."""
    listing = [page for page, texts in pages.items() if not _lists_no_references(texts)]
    last = max(listing, default=min(pages, default=0))
    return [
        Block(title, page, "\n".join(texts), True)
        if page <= last
        else Block(_UNFOUND_APPENDIX, page, _unwrap(texts))
        for page, texts in pages.items()
        if any(text.strip() for text in texts)
    ]


def _lists_no_references(texts: list[str]) -> bool:
    """Does a page of a references section list none: no line of it gives a year or
    starts a numbered entry, or too few of its many lines do?"""
    lines = [text for text in texts if text.strip()]
    marked = sum(bool(_REFERENCE_MARK_RE.search(text)) for text in lines)
    return marked == 0 or (
        len(lines) >= _MIN_APPENDIX_LINES and marked < _MIN_MARKED_SHARE * len(lines)
    )


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
