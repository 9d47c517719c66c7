"""A run killed part way and run again gives exactly the index of one uninterrupted run."""

from __future__ import annotations

import gzip
import itertools
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.vectors.store import ChunkStore, open_chroma
from tests.support.data import ABSTRACTS, PDFS, ROOT
from tests.support.running.cli import command, environment, run

# Runs `paperchat ingest` on real PDFs and abstracts, killed part way and run again.
pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]

PDF_NAMES = ["2304.02623v1.pdf", "1503.02531v1.pdf", "2007.01282v2.pdf"]


def _abstracts(path: Path, count: int) -> Path:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        path.write_text("".join(itertools.islice(lines, count)), encoding="utf-8")
    return path


def _committed_chunks(data_dir: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{data_dir / 'catalog.sqlite'}?mode=ro", uri=True, timeout=1)
        try:
            return int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _kill_part_way(env: dict[str, str], args: list[str], after_chunks: int) -> bool:
    """Start a run and SIGKILL it once `after_chunks` chunks are committed; True if killed."""
    process = subprocess.Popen(
        command(*args), env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    data_dir = Path(env["PAPERCHAT_DATA_DIR"])
    deadline = time.monotonic() + 300
    while process.poll() is None and time.monotonic() < deadline:
        if _committed_chunks(data_dir) >= after_chunks:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            return True
        time.sleep(0.02)
    process.kill()
    process.wait()
    return False


def _snapshot(data_dir: Path) -> dict[str, Any]:
    db = sqlite3.connect(data_dir / "catalog.sqlite")
    # A paper's arrival number counts the changes before it, which a resumed run repeats.
    columns = [row[1] for row in db.execute("PRAGMA table_info(papers)") if row[1] != "arrival"]
    papers = db.execute(f"SELECT {', '.join(columns)} FROM papers ORDER BY id").fetchall()
    chunks = db.execute(
        "SELECT id, paper_id, kind, number, section, page_start, page_end, text FROM chunks"
        " ORDER BY id"
    ).fetchall()
    lexical = LexicalIndex(data_dir / "lexical")
    pending = db.execute("SELECT COUNT(*) FROM pending").fetchone()[0]
    db.close()
    store = ChunkStore(open_chroma(data_dir / "chroma"), None)
    got = store.collection.get(include=["documents", "metadatas", "embeddings"])
    order = np.argsort(got["ids"])
    vectors = np.asarray(got["embeddings"])[order]
    return {
        "papers": papers,
        "chunks": chunks,
        "lexical_ids": sorted(lexical.chunk_ids()),
        "lexical_count": lexical.count(),
        "pending": pending,
        "chroma_ids": [got["ids"][i] for i in order],
        "chroma_documents": [got["documents"][i] for i in order],  # type: ignore[index]
        "chroma_metadatas": [got["metadatas"][i] for i in order],  # type: ignore[index]
        "vectors": vectors,
    }


def test_killed_and_resumed_runs_equal_an_uninterrupted_one(
    tmp_path: Path, models_cache: Path
) -> None:
    metadata = _abstracts(tmp_path / "abstracts.jsonl", 500)
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name in PDF_NAMES:
        shutil.copy(PDFS / name, folder / name)
    steps = [["ingest", "abstracts", str(metadata)], ["ingest", "pdfs", str(folder)]]
    reference = environment(tmp_path / "reference", models_cache)
    for step in steps:
        assert run(reference, *step).code == 0
    resumed = environment(tmp_path / "resumed", models_cache)

    killed = [_kill_part_way(resumed, steps[0], after_chunks) for after_chunks in (1, 300)]
    killed.append(_kill_part_way(resumed, steps[1], _committed_chunks(tmp_path / "resumed") + 1))
    for step in steps:
        assert run(resumed, *step).code == 0

    assert killed == [True, True, True]
    want = _snapshot(tmp_path / "reference")
    got = _snapshot(tmp_path / "resumed")
    assert got["pending"] == want["pending"] == 0
    assert got["lexical_count"] == want["lexical_count"] == len(want["chunks"])
    assert got["lexical_ids"] == want["lexical_ids"] == [c[0] for c in want["chunks"]]
    for key in ("papers", "chunks", "chroma_ids", "chroma_documents", "chroma_metadatas"):
        assert got[key] == want[key], key
    assert got["chroma_ids"] == [c[0] for c in want["chunks"]]
    assert np.allclose(got["vectors"], want["vectors"], atol=1e-3)
