"""The PDF store: a copy of each PDF ingest read, named by its SHA-256, where every node
finds it (a folder they share): `<root>/ab/ab12…ef.pdf`.

The catalog records each paper's PDF by its SHA-256 as well as by the path
ingest read it from, which only the ingesting machine has. A copy goes in
through a temporary file in the same folder, hashed on the way, and is
renamed into place only when its bytes are the ones recorded: a reader
never sees half a file, and a name always matches its content.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Final

from ingest.errors import PaperchatError

_SHA256: Final = re.compile(r"[0-9a-f]{64}")
_BLOCK: Final = 1 << 20


class StoreError(PaperchatError):
    """A PDF could not be written to the store (the folder unwritable, the disk full)."""


class PdfChanged(StoreError):
    """The file's bytes are not those the caller read (it changed in between)."""


class PdfStore:
    """PDFs by SHA-256 under `root`, a folder made when the first one is put."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        """Where the PDF with this SHA-256 is kept (ValueError for anything else)."""
        if not _SHA256.fullmatch(sha256):
            raise ValueError(f"not a SHA-256 in hex: {sha256!r}")
        return self.root / sha256[:2] / f"{sha256}.pdf"

    def find(self, sha256: str) -> Path | None:
        """The kept PDF with this SHA-256, if the store has it."""
        path = self.path(sha256)
        return path if path.is_file() else None

    def put(self, source: Path, sha256: str) -> Path:
        """Keep a copy of `source`, whose SHA-256 the caller read as `sha256`; where it is.

        Nothing is copied when the store has it already. PdfChanged when the
        bytes copied hash otherwise, StoreError when the copy cannot be made.
        """
        target = self.path(sha256)
        if target.is_file():
            return target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(
                prefix=f".{sha256[:12]}-", suffix=".part", dir=target.parent
            )
        except OSError as e:
            raise StoreError(f"cannot write to the PDF store {str(self.root)!r}: {e}") from e
        part = Path(temporary)
        try:
            digest = _copy(source, descriptor)
            if digest != sha256:
                raise PdfChanged(
                    f"{str(source)!r} changed while it was read: its SHA-256 is now {digest}, "
                    f"not {sha256}"
                )
            part.chmod(0o644)  # other nodes' servers read the store too
            part.replace(target)
        except OSError as e:
            part.unlink(missing_ok=True)
            raise StoreError(f"cannot copy {str(source)!r} to the PDF store: {e}") from e
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        return target


def _copy(source: Path, descriptor: int) -> str:
    """Copy `source` into the open file `descriptor` (closed after), synced; its SHA-256."""
    digest = hashlib.sha256()
    with source.open("rb") as reading, os.fdopen(descriptor, "wb") as writing:
        for block in iter(lambda: reading.read(_BLOCK), b""):
            digest.update(block)
            writing.write(block)
        writing.flush()
        os.fsync(writing.fileno())
    return digest.hexdigest()
