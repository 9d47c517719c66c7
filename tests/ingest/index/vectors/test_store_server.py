"""A library whose vectors live on a real `chroma run` server, through the command line."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import pytest

from ingest.index.vectors.store import DROPPED_FIELDS, ChunkStore, open_chroma
from tests.support.data import ABSTRACTS
from tests.support.running.cli import environment, run

# Each command runs in a process of its own, loading the embedder.
pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]

JACO = "2209.07775"  # "Jaco: An Offline Running Privacy-aware Voice Assistant"
# The question shares no word but "voice assistant" with the paper's title.
QUESTION = "Which voice assistant works without an internet connection and keeps users' speech?"


def _first_records(path: Path, count: int) -> Path:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        path.write_text("".join(itertools.islice(lines, count)), encoding="utf-8")
    return path


def test_a_library_on_a_chroma_server_is_found_by_meaning_deleted_and_counted(
    tmp_path: Path, models_cache: Path, empty_chroma_server: str
) -> None:
    data_dir = tmp_path / "data"
    env = environment(data_dir, models_cache, PAPERCHAT_CHROMA_URL=empty_chroma_server)
    records = _first_records(tmp_path / "records.jsonl", 12)
    server = ChunkStore(open_chroma(tmp_path, empty_chroma_server), None)

    ingested = run(env, "ingest", "abstracts", str(records), "--json")
    before = run(env, "index", "stats", "--json").json
    asked = run(env, "ask", QUESTION, "--json")
    jaco = set(server.ids_of(JACO))
    stored = server.collection.get(ids=list(jaco), include=["metadatas"])["metadatas"] or []
    deleted = run(env, "index", "delete", JACO)
    after = run(env, "index", "stats", "--json").json

    assert ingested.code == 0, ingested.stderr
    assert before["vectors"] == before["chunks"] == ingested.json["chunks_added"] >= 12
    assert asked.code == 0, asked.stderr
    first = asked.json["sources"][0]
    assert first["id"] == JACO
    assert first["title"] == "Jaco: An Offline Running Privacy-aware Voice Assistant"
    assert f"[arXiv:{JACO}]" in asked.json["answer"]
    assert stored
    assert all(m["paper_id"] == JACO and not set(DROPPED_FIELDS) & set(m) for m in stored)
    assert deleted.code == 0, deleted.stderr
    assert after["vectors"] == server.count() == before["vectors"] - len(jaco)
    assert after["papers"] == before["papers"] - 1
    assert server.ids_of(JACO) == []
    assert not (data_dir / "chroma").exists()  # every vector is on the server
