"""A paper's metadata read from its first page: title, authors, abstract and date.

Used when no metadata record exists for a PDF. The title is the largest type
above the abstract (its lines joined, small capitals put back in lower case);
the authors are the name-like parts of the lines between the title and the
abstract, without affiliation marks, e-mails or affiliations; the abstract is
the block after "Abstract" in that heading's column, in body type, up to the
first section heading; the date comes from the arXiv stamp in the margin,
else from the PDF's own dates. What cannot be read is left empty.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from datetime import date, datetime

from ingest.index.records import Header
from ingest.pdf.front.affiliations import read_affiliations
from ingest.pdf.front.bylines import author_names
from ingest.pdf.front.glyphs import Line

_STAMP_DATE_RE = re.compile(
    r"arXiv:\S+?(?P<version>v\d+)?\s*\[[^\]]*\]\s*(?P<day>\d{1,2})\s+(?P<month>[A-Z][a-z]{2})\s+(?P<year>\d{4})"
)
_PDF_DATE_RE = re.compile(r"^(?:D:)?(?P<year>\d{4})(?P<month>\d{2})?(?P<day>\d{2})?")
_ABSTRACT_RE = re.compile(r"^\s*a\s?bstract\b[\s.:\u2014\u2013-]*", re.I)
# Lines set large at the top of page 1 that are no title: venue banners and notices.
_NOT_TITLE_RE = re.compile(
    r"^(published|accepted|appeared|appearing|to appear|under review|preprint|proceedings"
    r"|workshop|in proceedings|arxiv|technical report|draft|journal of|ieee transactions"
    r"|provided proper attribution)",
    re.I,
)
# The first section after the abstract, numbered or not, and the blocks that end an abstract.
_SECTION_RE = re.compile(
    r"^(?:(?:\d{1,2}|[IVX]{1,4})\.?\s+)?(?:introduction|background|overview|motivation)\b"
    r"|^(?:\d{1,2}|[IVX]{1,4})\.?\s+[A-Z][A-Za-z\-]+(?:\s+[A-Za-z\-]+){0,6}$",
)
_ENDS_ABSTRACT_RE = re.compile(
    r"^(keywords|key words|index terms|ccs concepts|additional key words|acm reference format)",
    re.I,
)
_TITLE_SIZE_TOLERANCE = 0.06  # share of the title's size
_TITLE_MAX_LINES = 4
_TITLE_OVER_BODY = 1.1  # a title is set at least this much larger than the usual type
_BODY_SIZE_TOLERANCE = 0.06
_PARAGRAPH_GAP = 2.5  # a wider gap, in type sizes, ends the abstract (footnotes below it)
_FUNCTION_WORDS = {"and", "or", "to", "vs", "nor", "but"}


def read_header(lines: Sequence[Line], stamp: str, pdf_dates: Sequence[str]) -> Header:
    """What page 1 says of its paper; fields that cannot be read are left empty."""
    lines = [line for line in lines if line.text()]
    heading = _abstract_heading(lines)
    end = heading if heading is not None else _first_section(lines)
    front = lines[:end] if end is not None else lines[:40]
    title_at = _title_lines(front, _usual_size(lines))
    title = _join_title([lines[i] for i in title_at])
    after_title = front[title_at[-1] + 1 :] if title_at else []
    published, updated = _dates(stamp, pdf_dates)
    return Header(
        title=title,
        authors=", ".join(author_names(after_title)),
        abstract=_abstract(lines, heading)
        if heading is not None
        else _unheaded_abstract(lines, end),
        published=published,
        updated=updated,
        affiliations=read_affiliations(after_title),
    )


# Dates


def _dates(stamp: str, pdf_dates: Sequence[str]) -> tuple[str, str]:
    """(published, updated): a first version's stamp dates its paper, a later one its update."""
    match = _STAMP_DATE_RE.search(stamp)
    if match is not None:
        try:
            day = datetime.strptime(
                f"{match['day']} {match['month']} {match['year']}", "%d %b %Y"
            ).date()
        except ValueError:
            day = None
        if day is not None:
            first = match["version"] in (None, "v1")
            return (day.isoformat(), "") if first else ("", day.isoformat())
    for value in pdf_dates:
        found = _pdf_date(value)
        if found:
            return found, ""
    return "", ""


def _pdf_date(value: str) -> str:
    """`D:20200605103000Z` (the PDF date format) as `2020-06-05`; "" when it is not one."""
    match = _PDF_DATE_RE.match(value.strip())
    if match is None or match["month"] is None or match["day"] is None:
        return ""
    try:
        day = date(int(match["year"]), int(match["month"]), int(match["day"]))
    except ValueError:
        return ""
    return day.isoformat() if 1990 <= day.year <= 2100 else ""


# Title


def _abstract_heading(lines: Sequence[Line]) -> int | None:
    for index, line in enumerate(lines[:120]):
        if _ABSTRACT_RE.match(line.text(marks=False)):
            return index
    return None


def _first_section(lines: Sequence[Line]) -> int | None:
    for index, line in enumerate(lines[:160]):
        text = line.text(marks=False)
        if index > 0 and len(text) < 60 and _SECTION_RE.match(text):
            return index
    return None


def _usual_size(lines: Sequence[Line]) -> float:
    sizes = sorted(line.body_size for line in lines)
    return sizes[len(sizes) // 2] if sizes else 0.0


def _title_lines(front: Sequence[Line], usual: float) -> list[int]:
    """The indexes of the title's lines: the largest type above the first e-mail address,
    and the lines right below it in the same type; none when nothing is set larger than
    the page's usual type."""
    email = next((i for i, line in enumerate(front) if i > 0 and "@" in line.text()), len(front))
    candidates = [i for i, line in enumerate(front[:email]) if _may_be_title(line.text())]
    if not candidates:
        return []
    biggest = max(front[i].size for i in candidates)
    if biggest < _TITLE_OVER_BODY * usual:
        return []
    start = next(i for i in candidates if front[i].size >= biggest * (1 - _TITLE_SIZE_TOLERANCE))
    chosen = [start]
    for index in range(start + 1, min(start + 1 + 2 * _TITLE_MAX_LINES, len(front))):
        line, last = front[index], front[chosen[-1]]
        if abs(line.size - biggest) > biggest * _TITLE_SIZE_TOLERANCE:
            if line.top > last.base:
                continue  # a piece of the line above, set apart (a logo, a mark)
            break
        if last.base - line.top > 1.2 * biggest or not _may_be_title(line.text()):
            break
        chosen.append(index)
        if len(chosen) == _TITLE_MAX_LINES:
            break
    return chosen


def _may_be_title(text: str) -> bool:
    letters = sum(char.isalpha() for char in text)
    return letters >= 3 and not _NOT_TITLE_RE.match(text) and "@" not in text


def _join_title(lines: Sequence[Line]) -> str:
    title = ""
    for line in lines:
        part = _printed_case(line)
        if title.endswith(("\ufffe", "-")) and part[:1].islower():
            title = title[:-1] + part
        else:
            title = f"{title} {part}" if title else part
    return " ".join(title.replace("\ufffe", "-").split())


def _printed_case(line: Line) -> str:
    return line.text(small_caps=True)


# Abstract


def _abstract(lines: Sequence[Line], heading: int) -> str:
    """The block after the "Abstract" heading, in its column, up to the next section."""
    first = lines[heading]
    inline = _ABSTRACT_RE.sub("", first.text(marks=False), count=1)
    body = list(range(heading + 1, min(heading + 80, len(lines))))
    if not body:
        return _clean(inline)
    column = (first.left, first.right) if len(inline) > 20 else None
    size = first.body_size if inline and len(inline) > 20 else None
    texts = [inline] if inline else []
    previous: Line | None = None
    for index in body:
        line = lines[index]
        text = line.text(marks=False)
        if column is None:
            column, size = (line.left, line.right), line.body_size
        if not _overlaps(line, column):
            continue
        if size is not None and line.body_size < size * (1 - _BODY_SIZE_TOLERANCE):
            continue  # a footnote or a caption set smaller
        if _SECTION_RE.match(text) or _ENDS_ABSTRACT_RE.match(text):
            break
        if size is not None and line.body_size > size * (1 + _BODY_SIZE_TOLERANCE):
            break  # a heading
        if previous is not None and previous.base - line.top > _PARAGRAPH_GAP * line.size:
            break
        texts.append(text)
        previous = line
        column = (min(column[0], line.left), max(column[1], line.right))
    return _clean(_unwrap(texts))


def _unheaded_abstract(lines: Sequence[Line], section: int | None) -> str:
    """With no "Abstract" heading: the paragraph in body type right above the first section."""
    if section is None:
        return ""
    heading = lines[section]
    start = heading.left + 2 * heading.size
    above = [
        i
        for i in range(section - 1, max(section - 60, -1), -1)
        if lines[i].left < start < lines[i].right
    ]
    block: list[Line] = []
    for index in above:
        line = lines[index]
        if line.base < heading.top:
            continue  # below the heading: another column's text
        if block and line.base - block[-1].top > 0.9 * line.size:
            if _ENDS_ABSTRACT_RE.match(block[-1].text()):
                block = [line]  # keywords or concepts above the section: skip that block
                continue
            break
        block.append(line)
    texts = [line.text(marks=False) for line in reversed(block)]
    if not texts or _ENDS_ABSTRACT_RE.match(texts[0]):
        return ""
    return _clean(_unwrap(texts))


def _overlaps(line: Line, column: tuple[float, float]) -> bool:
    width = max(line.right - line.left, 1.0)
    shared = min(line.right, column[1]) - max(line.left, column[0])
    return shared > 0.5 * width


def _unwrap(texts: Sequence[str]) -> str:
    """Lines joined into one paragraph, words broken across lines put back together."""
    joined = ""
    for text in texts:
        if joined.endswith(("-", "\ufffe")) and text[:1].islower():
            word = text.split()[0].strip(".,;:")
            joined = joined[:-1] + ("-" if word in _FUNCTION_WORDS else "") + text
        else:
            joined = f"{joined} {text}" if joined else text
    return joined


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text.replace("\ufffe", "-"))
    return " ".join(text.split())
