"""Putting ingest work on the queue, cut into jobs small enough that a killed worker loses
little: metadata files in batches of lines, PDFs one each, arXiv ids a few at a time."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import procrastinate

from ingest.jobs.batches import BATCH_LINES, split
from ingest.jobs.tasks import INGEST_ARXIV, INGEST_BATCH, INGEST_PDF
from ingest.pdf.store import PdfStore, StoreError
from ingest.report import Skipped
from ingest.sources.units import find_pdfs

ARXIV_IDS_PER_JOB = 20
_DEFER_AT_ONCE = 1000


def _defer(app: procrastinate.App, task: str, arguments: Iterable[dict[str, Any]]) -> list[int]:
    ids: list[int] = []
    pending: list[dict[str, Any]] = []
    for kwargs in [*arguments, None]:
        if kwargs is not None:
            pending.append(kwargs)
        if pending and (kwargs is None or len(pending) >= _DEFER_AT_ONCE):
            ids.extend(app.tasks[task].batch_defer(*pending))
            pending = []
    return ids


def enqueue_metadata(app: procrastinate.App, path: Path, lines: int = BATCH_LINES) -> list[int]:
    """One job per `lines` lines of a metadata file; the job ids."""
    return _defer(app, INGEST_BATCH, (dataclasses.asdict(b) for b in split(path, lines)))


def enqueue_pdfs(
    app: procrastinate.App, paths: Iterable[Path], store: PdfStore | None
) -> tuple[list[int], list[Skipped]]:
    """One job per PDF named or found in the folders named; the job ids and what was not
    found or could not be kept. With a `store` (a folder every worker reads), each PDF is
    copied there first and its job names it by SHA-256; without, by its path, which every
    worker must then be able to read."""
    files, skipped = find_pdfs(paths)
    arguments: list[dict[str, Any]] = []
    for file in files:
        if store is None:
            arguments.append({"path": str(file)})
            continue
        try:
            sha256 = file_sha256(file)
            store.put(file, sha256)
        except (OSError, StoreError) as e:
            skipped.append(Skipped(str(file), f"cannot keep it in the PDF store: {e}"))
            continue
        arguments.append({"sha256": sha256, "name": file.name})
    return _defer(app, INGEST_PDF, arguments), skipped


def file_sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def enqueue_arxiv(
    app: procrastinate.App, ids: Sequence[str], per_job: int = ARXIV_IDS_PER_JOB
) -> list[int]:
    """One job per `per_job` arXiv ids."""
    groups = ({"ids": list(ids[i : i + per_job])} for i in range(0, len(ids), per_job))
    return _defer(app, INGEST_ARXIV, groups)
