"""Split papers into chunks sized in the embedder's own word pieces.

Abstract chunks start with the paper's title. Full-text chunks never cross a
section boundary, keep the pages they came from, and leave the references
out. Chunk ids are deterministic: the paper, the kind, the chunk number and a
hash of the unit's content, so a changed paper gets new ids and a crash half
way through replacing one never mixes two versions under one id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

from langchain_text_splitters import RecursiveCharacterTextSplitter

from ingest.index.records import Block, Chunk, Paper
from ingest.pdf.layout.grid import is_row

CountTokens = Callable[[str], int]

# all-MiniLM-L6-v2 reads 256 word pieces, two of them [CLS] and [SEP].
MAX_CHUNK_TOKENS = 254
FULLTEXT_CHUNK_TOKENS = 200
FULLTEXT_OVERLAP_TOKENS = 40
ABSTRACT_OVERLAP_TOKENS = 32
# A sentence's end: a period and a space, but not the period of an abbreviation inside a
# sentence ("news articles vs. tweets", "Finn et al. used", "as in Fig. 2", "e.g. BM25"),
# where a cut would leave the sentence's two halves in different chunks.
_SENTENCE_END = "".join(
    rf"(?<!\b{abbreviation})"
    for abbreviation in (
        r"vs", r"e\.g", r"i\.e", r"al", r"cf", r"[Ff]ig", r"[Ff]igs", r"[Ee]q", r"[Ee]qs",
        r"[Ss]ec", r"[Tt]ab", r"resp", r"approx", r"[Rr]ef", r"[Rr]efs",
    )
) + r"\. "  # fmt: skip
_SEPARATORS = ["\n\n", "\n", _SENTENCE_END, "; ", ", ", " ", ""]


@dataclass(frozen=True)
class Piece:
    """A chunk's text before it has an id."""

    text: str
    section: str
    page_start: int
    page_end: int
    kind: str = "fulltext"


def _splitter(size: int, overlap: int, count_tokens: CountTokens) -> RecursiveCharacterTextSplitter:
    return RecursiveCharacterTextSplitter(
        chunk_size=size,
        chunk_overlap=overlap,
        length_function=count_tokens,
        separators=_SEPARATORS,
        keep_separator="end",
        is_separator_regex=True,
        strip_whitespace=True,
    )


def _fit(text: str, limit: int, count_tokens: CountTokens) -> list[str]:
    """Halve a text at a space until every part is within `limit` tokens."""
    if count_tokens(text) <= limit:
        return [text]
    middle = len(text) // 2
    cut = text.rfind(" ", 0, middle)
    cut = cut if cut > 0 else middle
    return _fit(text[:cut].strip(), limit, count_tokens) + _fit(
        text[cut:].strip(), limit, count_tokens
    )


def abstract_pieces(paper: Paper, count_tokens: CountTokens) -> list[Piece]:
    """The title and abstract as one chunk, or several each starting with the title."""
    whole = f"{paper.title}\n\n{paper.abstract}"
    if count_tokens(whole) <= MAX_CHUNK_TOKENS:
        return [Piece(whole, "Abstract", 0, 0)]
    title_tokens = count_tokens(paper.title) + 2
    room = max(MAX_CHUNK_TOKENS - title_tokens, 64)
    parts = _splitter(room, ABSTRACT_OVERLAP_TOKENS, count_tokens).split_text(paper.abstract)
    texts = [f"{paper.title}\n\n{part}" for part in parts]
    fitted = [t for text in texts for t in _fit(text, MAX_CHUNK_TOKENS, count_tokens)]
    return [Piece(text, "Abstract", 0, 0) for text in fitted]


def _page_at(offset: int, starts: Sequence[tuple[int, int]]) -> int:
    """The page of the block that holds character `offset`."""
    page = starts[0][1]
    for start, block_page in starts:
        if start > offset:
            break
        page = block_page
    return page


def _section_pieces(
    section: str, blocks: Sequence[Block], count_tokens: CountTokens
) -> Iterable[Piece]:
    starts: list[tuple[int, int]] = []
    text = ""
    for block in blocks:
        if text:
            text += " "
        starts.append((len(text), block.page))
        text += block.text.strip()
    splitter = _splitter(FULLTEXT_CHUNK_TOKENS, FULLTEXT_OVERLAP_TOKENS, count_tokens)
    start = 0
    for part in splitter.split_text(text):
        start = _locate(text, part, start)
        end = start + max(len(part) - 1, 0)
        for piece in _fit(part, MAX_CHUNK_TOKENS, count_tokens):
            yield Piece(piece, section, _page_at(start, starts), _page_at(end, starts))


def _locate(text: str, part: str, after: int) -> int:
    """Where a chunk starts in its section's text, searching from the previous chunk's start."""
    for probe in (part, part[:80]):
        found = text.find(probe, after)
        if found >= 0:
            return found
    return after


def fulltext_pieces(blocks: Sequence[Block], count_tokens: CountTokens) -> list[Piece]:
    """Chunks of every content section, in reading order, references left out; then
    the captions, tables and footnotes, each in chunks of its own kind."""
    content = [b for b in blocks if not b.is_references and b.text.strip()]
    body = [b for b in content if b.kind == "fulltext"]
    pieces: list[Piece] = []
    # Consecutive blocks of one section form one run; a heading repeated later
    # (two "Results" sections) starts a run of its own.
    for section, run in groupby(body, key=lambda b: b.section):
        pieces.extend(_section_pieces(section, list(run), count_tokens))
    for block in content:
        if block.kind != "fulltext":
            pieces.extend(_extra_pieces(block, count_tokens))
    return pieces


def _extra_pieces(block: Block, count_tokens: CountTokens) -> Iterable[Piece]:
    """A caption, table or footnote block: one chunk, or several when it is long; each
    chunk of a long table begins with the table's header lines, so that every row can
    still be read under its columns."""
    if block.kind == "table" and (parts := _table_parts(block.text, count_tokens)):
        for part in parts:
            for piece in _fit(part, MAX_CHUNK_TOKENS, count_tokens):
                yield Piece(piece, block.section, block.page, block.page, block.kind)
        return
    splitter = _splitter(FULLTEXT_CHUNK_TOKENS, FULLTEXT_OVERLAP_TOKENS, count_tokens)
    for part in splitter.split_text(block.text):
        for piece in _fit(part, MAX_CHUNK_TOKENS, count_tokens):
            yield Piece(piece, block.section, block.page, block.page, block.kind)


def _table_parts(text: str, count_tokens: CountTokens) -> list[str]:
    """A table's rows in runs that fit a chunk, each run after the table's header lines
    (the lines before its first row of numbers); none when the header alone fills half a
    chunk or the table has no header or no rows."""
    lines = [line for line in text.split("\n") if line.strip()]
    first_row = next((i for i, line in enumerate(lines) if is_row(line.split("|"))), 0)
    header, rows = lines[:first_row], lines[first_row:]
    room = FULLTEXT_CHUNK_TOKENS - count_tokens("\n".join(header))
    if not header or not rows or room < FULLTEXT_CHUNK_TOKENS // 2:
        return []
    parts: list[list[str]] = [[]]
    used = 0
    for row in rows:
        size = count_tokens(row) + 1
        if parts[-1] and used + size > room:
            parts.append([])
            used = 0
        parts[-1].append(row)
        used += size
    return ["\n".join([*header, *part]) for part in parts]


def unit_hash(paper: Paper, kind: str, pieces: Sequence[Piece]) -> str:
    """Fingerprint of everything stored for one paper's abstract or full text."""
    digest = hashlib.sha256()
    fields = (paper.id, paper.version, paper.title, paper.authors, " ".join(paper.categories))
    for value in (*fields, paper.published, kind):
        digest.update(value.encode())
        digest.update(b"\x00")
    for piece in pieces:
        if piece.kind != "fulltext":
            digest.update(f"{piece.kind}\x00".encode())
        digest.update(f"{piece.section}\x00{piece.page_start}\x00{piece.page_end}\x00".encode())
        digest.update(piece.text.encode())
        digest.update(b"\x01")
    return digest.hexdigest()


def _chunk_kind(unit_kind: str, piece: Piece) -> str:
    """A full-text unit holds body chunks and its captions, tables and footnotes."""
    return piece.kind if unit_kind == "fulltext" else unit_kind


def make_chunks(paper: Paper, kind: str, pieces: Sequence[Piece], digest: str) -> list[Chunk]:
    return [
        Chunk(
            id=f"{paper.id}#{_chunk_kind(kind, piece)}-{number}@{digest[:10]}",
            paper_id=paper.id,
            kind=_chunk_kind(kind, piece),
            number=number,
            text=piece.text,
            section=piece.section,
            page_start=piece.page_start,
            page_end=piece.page_end,
            paper=paper,
        )
        for number, piece in enumerate(pieces)
    ]
