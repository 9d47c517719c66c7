"""A metadata file cut into batches of lines, one job each, small enough that a killed
worker loses little.

A batch names its file, the byte offset of its first line (in the decompressed stream for
a `.gz` file, which a job reads up to there) and how many lines it has, so a job reads its
lines without the ones before. Lines are read as `read_metadata` reads them: each on its
own, a line over the record limit passed over in pieces, never held whole.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from io import BufferedIOBase
from pathlib import Path

from ingest.index.records import Paper
from ingest.report import Skipped
from ingest.sources.metadata import MAX_RECORD_BYTES, MetadataError, paper_from_record

BATCH_LINES = 200
_PIECE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Batch:
    path: str
    offset: int
    first_line: int  # counted from 1
    lines: int


def _open(path: Path) -> BufferedIOBase:
    try:
        if path.suffix == ".gz":
            return gzip.open(path, "rb")
        return path.open("rb")
    except OSError as e:
        raise MetadataError(f"cannot read {str(path)!r}: {e.strerror or e}") from e


def _line_length(stream: BufferedIOBase) -> int:
    """Reads one line in pieces; its length in bytes (0 at the end)."""
    length = 0
    while True:
        piece = stream.readline(_PIECE_BYTES)
        length += len(piece)
        if not piece or piece.endswith(b"\n"):
            return length


def split(path: Path, lines: int = BATCH_LINES) -> Iterator[Batch]:
    """The batches of `lines` lines that cover the file."""
    name = str(path.resolve())
    offset = start = 0
    first = number = 1
    with _open(path) as stream:
        while length := _line_length(stream):
            offset += length
            if number - first + 1 == lines:
                yield Batch(name, start, first, lines)
                start, first = offset, number + 1
            number += 1
    if number > first:
        yield Batch(name, start, first, number - first)


def read_batch(batch: Batch, max_record_bytes: int = MAX_RECORD_BYTES) -> Iterator[Paper | Skipped]:
    """The papers of the batch's lines, and a `Skipped` for each bad one."""
    path = Path(batch.path)
    with _open(path) as stream:
        stream.seek(batch.offset)
        for number in range(batch.first_line, batch.first_line + batch.lines):
            source = f"{path.name}:{number}"
            line = stream.readline(max_record_bytes + 1)
            if not line:
                return
            if len(line) > max_record_bytes and not line.endswith(b"\n"):
                length = len(line) + _line_length(stream)
                yield Skipped(source, f"record is {length} bytes, over the limit of "
                              f"{max_record_bytes} bytes (PAPERCHAT_MAX_RECORD_BYTES)")  # fmt: skip
            elif line.strip():
                yield _parse(line, source)


def _parse(line: bytes, source: str) -> Paper | Skipped:
    try:
        record = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError) as e:
        return Skipped(source, f"not a JSON record: {str(e).partition(';')[0]}")
    if not isinstance(record, dict):
        return Skipped(source, "line is not a JSON object")
    try:
        return paper_from_record(record)
    except ValueError as e:
        return Skipped(source, str(e))
