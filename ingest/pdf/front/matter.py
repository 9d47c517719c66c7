"""Page 1's front matter (title, authors, affiliations, e-mails, notices) out of the body.

The layout stage reads page 1 top to bottom, so the blocks before its first
heading hold the title and author block, and, in papers without an
"Abstract" heading, the abstract after it. The header reader (`header.py`)
has already taken the title, names and abstract from these lines; in the
body they would only be a passage of names and addresses that retrieval and
extractive answers must step over. What precedes the abstract goes; the
abstract stays, as the body's "Abstract" section. ACM's reference paragraph
on page 1 (the authors, title and venue once more) goes too.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence

from ingest.index.records import Block, Header
from ingest.pdf.alignment import keys_of
from ingest.pdf.text.headings import is_abstract

# Letters and digits of the abstract's start looked for in the front blocks: enough to
# be unmistakable, few enough that a mark or ligature further on does not matter.
_PROBE_CHARS = 48
# ACM's "how to cite this paper" paragraph on page 1: the authors, title and venue again,
# up to the paper's DOI or the paragraph's end.
_ACM_REFERENCE_RE = re.compile(
    r"ACM Reference Format:\s*(?:[^\n]|\n(?!\n))*?(?:https?://doi\.org/\S+|(?=\n\n)|$)\s*"
)


def drop_front_matter(blocks: Sequence[Block], header: Header, stats: Counter[str]) -> list[Block]:
    """The blocks without page 1's front matter.

    The front is the run of page-1 body blocks before the first heading. When
    the header's abstract starts inside it, the text before that start goes
    and the rest becomes the "Abstract" section; when an "Abstract" heading
    follows it, it goes whole; otherwise (no abstract read, nothing to tell
    front matter from body) it stays as it is.
    """
    cleaned = [_without_acm_reference(block, stats) for block in blocks]
    front = _front(cleaned)
    if not front:
        return cleaned
    rest = cleaned[len(front) :]
    start = _abstract_start(front, header.abstract)
    if start is not None:
        index, offset = start
        dropped = sum(len(b.text) for b in front[:index]) + offset
        kept = [
            dataclasses.replace(front[index], section="Abstract", text=front[index].text[offset:])
        ]
        kept += [dataclasses.replace(b, section="Abstract") for b in front[index + 1 :]]
    elif rest and rest[0].kind == "fulltext" and is_abstract(rest[0].section):
        dropped, kept = sum(len(b.text) for b in front), []
    else:
        return cleaned
    stats["front_matter_chars_dropped"] += dropped
    return kept + rest


def _without_acm_reference(block: Block, stats: Counter[str]) -> Block:
    if block.page != 1 or block.kind != "fulltext" or "ACM Reference Format" not in block.text:
        return block
    text, count = _ACM_REFERENCE_RE.subn("", block.text)
    stats["front_matter_chars_dropped"] += len(block.text) - len(text)
    return dataclasses.replace(block, text=text.rstrip()) if count else block


def _front(blocks: Sequence[Block]) -> list[Block]:
    front: list[Block] = []
    for block in blocks:
        if block.kind != "fulltext" or block.page != 1 or block.section:
            break
        front.append(block)
    return front


def _abstract_start(front: Sequence[Block], abstract: str) -> tuple[int, int] | None:
    """(block, character offset) where the abstract starts in the front blocks, if it does."""
    probe = keys_of(abstract)[0][:_PROBE_CHARS]
    if len(probe) < _PROBE_CHARS // 2:
        return None
    for index, block in enumerate(front):
        letters, offsets = keys_of(block.text)
        found = letters.find(probe)
        if found >= 0:
            return index, offsets[found]
    return None
