"""`paperchat ingest` and `paperchat index` end to end, on real PDFs and metadata."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from ingest.index.vectors.store import ChunkStore, open_chroma
from tests.fakes.arxiv import FakeArxiv, FakePaper
from tests.fakes.openai import FakeOpenAI
from tests.support.data import PDFS
from tests.support.running.cli import environment, run
from tests.support.worlds import pdf_fixtures

# Each test runs `paperchat ingest` in a process of its own, loading the embedder.
pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]

SMALL = ["2304.02623v1.pdf", "1503.02531v1.pdf"]
HUMAN_NAMED = "Adam_ A Method for Stochastic Optimization.pdf"
NOT_ON_ARXIV = "2020.acl-main.447.pdf"


def copy_pdfs(names: list[str], folder: Path) -> Path:
    """The shared PDFs `names` copied into `folder` (made if missing): `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(PDFS / name, folder / name)
    return folder


def _catalog(data_dir: Path) -> sqlite3.Connection:
    db = sqlite3.connect(data_dir / "catalog.sqlite")
    db.row_factory = sqlite3.Row
    return db


@pytest.fixture(name="env")
def env_fixture(tmp_path: Path, models_cache: Path) -> dict[str, str]:
    """`paperchat`'s environment with a data dir in `tmp_path`."""
    return environment(tmp_path / "data", models_cache)


def test_ingest_pdfs_then_again_adds_nothing(env: dict[str, str], tmp_path: Path) -> None:
    folder = copy_pdfs([*SMALL, HUMAN_NAMED, NOT_ON_ARXIV], tmp_path / "pdfs")

    first = run(env, "ingest", "pdfs", str(folder), "--json")
    stats_first = run(env, "index", "stats", "--json").json
    second = run(env, "ingest", "pdfs", str(folder), "--json")
    stats_second = run(env, "index", "stats", "--json").json

    assert first.code == 0, first.stderr
    assert first.json["added_papers"] == 4
    assert first.json["chunks_added"] == stats_first["chunks"] > 0
    assert second.code == 0
    assert second.json["unchanged_papers"] == 4
    assert (second.json["chunks_added"], second.json["chunks_deleted"]) == (0, 0)
    assert stats_second == stats_first
    assert stats_first["chunks_by_kind"]["abstract"] == 0
    assert stats_first["papers_with_fulltext"] == 4
    assert stats_first["vectors"] == stats_first["chunks"]


def test_pdf_ids_come_from_name_stamp_or_content_hash(env: dict[str, str], tmp_path: Path) -> None:
    folder = copy_pdfs([SMALL[0], HUMAN_NAMED, NOT_ON_ARXIV], tmp_path / "pdfs")

    result = run(env, "ingest", "pdfs", str(folder), "--json")

    assert result.code == 0, result.stderr
    papers = {r["id"]: r for r in _catalog(Path(env["PAPERCHAT_DATA_DIR"])).execute(
        "SELECT * FROM papers"
    )}  # fmt: skip
    assert papers["2304.02623"]["version"] == "v1"
    assert papers["1412.6980"]["version"] == "v9"
    assert papers["1412.6980"]["categories"] == "cs.LG"
    docs = [p for p in papers.values() if not p["is_arxiv"]]
    assert len(docs) == 1
    assert len(docs[0]["id"]) == 16
    assert docs[0]["title"] == "S2ORC: The Semantic Scholar Open Research Corpus"
    assert docs[0]["pdf_file"] == "2020.acl-main.447"


def test_pdf_attaches_to_its_metadata_record(env: dict[str, str], tmp_path: Path) -> None:
    record = {
        "id": "1503.02531",
        "title": "Distilling the Knowledge in a Neural\n  Network",
        "abstract": "A very simple way to improve the performance of almost any machine learning"
        " algorithm is to train many different models on the same data.",
        "authors": "Geoffrey Hinton, Oriol Vinyals, Jeff Dean",
        "categories": "stat.ML cs.LG cs.NE",
        "update_date": "2015-03-10",
    }
    metadata = tmp_path / "one.jsonl"
    metadata.write_text(json.dumps(record) + "\n")
    folder = copy_pdfs(["1503.02531v1.pdf"], tmp_path / "pdfs")

    abstracts = run(env, "ingest", "abstracts", str(metadata), "--json")
    pdfs = run(env, "ingest", "pdfs", str(folder), "--json")

    assert abstracts.json["added_papers"] == 1
    assert pdfs.json["updated_papers"] == 1
    stats = run(env, "index", "stats", "--json").json
    assert stats["papers"] == 1
    assert stats["chunks_by_kind"]["abstract"] == 1
    assert stats["chunks_by_kind"]["fulltext"] > 5
    row = _catalog(Path(env["PAPERCHAT_DATA_DIR"])).execute("SELECT * FROM papers").fetchone()
    assert row["title"] == "Distilling the Knowledge in a Neural Network"
    assert row["categories"] == "stat.ML cs.LG cs.NE"


def test_new_pdf_version_replaces_old_chunks(env: dict[str, str], tmp_path: Path) -> None:
    old = copy_pdfs(["2304.02623v1.pdf"], tmp_path / "old")
    new = tmp_path / "new"
    new.mkdir()
    # Other content with no stamp of its own, under the name of the same paper's next version.
    shutil.copy(PDFS / NOT_ON_ARXIV, new / "2304.02623v2.pdf")
    run(env, "ingest", "pdfs", str(old), "--json")
    data = Path(env["PAPERCHAT_DATA_DIR"])
    old_ids = {r[0] for r in _catalog(data).execute("SELECT id FROM chunks")}

    result = run(env, "ingest", "pdfs", str(new), "--json")

    assert result.json["updated_papers"] == 1
    assert result.json["chunks_deleted"] == len(old_ids)
    new_ids = {r[0] for r in _catalog(data).execute("SELECT id FROM chunks")}
    assert not new_ids & old_ids
    assert run(env, "index", "stats", "--json").json["vectors"] == len(new_ids)
    version = _catalog(data).execute("SELECT fulltext_version FROM papers").fetchone()[0]
    assert version == "v2"


def test_pdf_named_for_one_paper_holding_another_is_indexed_as_its_stamp_says(
    env: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(PDFS / HUMAN_NAMED, folder / "2304.02623v1.pdf")  # Adam, stamped 1412.6980v9

    result = run(env, "ingest", "pdfs", str(folder), "--json")

    assert result.code == 0, result.stderr
    rows = _catalog(Path(env["PAPERCHAT_DATA_DIR"])).execute("SELECT id, version FROM papers")
    assert [tuple(r) for r in rows] == [("1412.6980", "v9")]


def test_index_delete_removes_a_paper_from_both_indexes(
    env: dict[str, str], tmp_path: Path
) -> None:
    folder = copy_pdfs(SMALL, tmp_path / "pdfs")
    run(env, "ingest", "pdfs", str(folder))

    deleted = run(env, "index", "delete", "arXiv:2304.02623v1")
    unknown = run(env, "index", "delete", "2304.02623")

    assert deleted.code == 0, deleted.stderr
    stats = run(env, "index", "stats", "--json").json
    assert stats["papers"] == 1
    assert stats["vectors"] == stats["chunks"]
    data = Path(env["PAPERCHAT_DATA_DIR"])
    rows = _catalog(data).execute("SELECT COUNT(*) FROM chunks WHERE paper_id = '2304.02623'")
    assert rows.fetchone()[0] == 0
    assert unknown.code == 2
    assert "no paper" in unknown.stderr


def test_ingest_into_a_chroma_server(
    env: dict[str, str], tmp_path: Path, empty_chroma_server: str
) -> None:
    folder = copy_pdfs([SMALL[0]], tmp_path / "pdfs")
    server_env = {**env, "PAPERCHAT_CHROMA_URL": empty_chroma_server}

    result = run(server_env, "ingest", "pdfs", str(folder), "--json")
    stats = run(server_env, "index", "stats", "--json").json

    assert result.code == 0, result.stderr
    assert stats["vectors"] == stats["chunks"] == result.json["chunks_added"] > 0
    assert not (Path(env["PAPERCHAT_DATA_DIR"]) / "chroma").exists()


def test_ingest_arxiv_harvests_metadata_and_pdf(env: dict[str, str]) -> None:
    paper = FakePaper(
        id="2304.02623",
        title="Beyond Summarization: Designing AI Support for Real-World Expository Writing",
        summary="Large language models have introduced exciting new opportunities.",
        categories=("cs.CL", "cs.HC"),
    )
    body = (PDFS / "2304.02623v1.pdf").read_bytes()
    with FakeArxiv([paper], pdf_bodies={paper.id: body}) as fake:
        arxiv_env = {
            **env,
            "PAPERCHAT_ARXIV_API_URL": fake.api_url,
            "PAPERCHAT_ARXIV_PDF_URL": fake.pdf_base_url,
            "PAPERCHAT_ARXIV_INTERVAL_S": "0.05",
        }

        result = run(arxiv_env, "ingest", "arxiv", "--id", "2304.02623", "--id", "2304.99999",
                     "--json")  # fmt: skip
        agents = {r.headers.get("user-agent", "") for r in fake.requests}

    assert result.code == 1, result.stderr
    assert result.json["added_papers"] == 1
    assert [s["source"] for s in result.json["skipped"]] == ["arXiv:2304.99999"]
    stats = run(env, "index", "stats", "--json").json
    assert stats["chunks_by_kind"]["abstract"] == 1
    assert stats["chunks_by_kind"]["fulltext"] > 5
    assert all(a.startswith("paperchat/") for a in agents)
    assert (Path(env["PAPERCHAT_DATA_DIR"]) / "pdfs" / "2304.02623v1.pdf").exists()


def test_ingest_with_an_openai_compatible_embeddings_endpoint(
    env: dict[str, str], tmp_path: Path
) -> None:
    record = {"id": "2101.00001", "title": "T", "abstract": "About retrieval.", "authors": "A"}
    path = tmp_path / "meta.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with FakeOpenAI() as fake:
        openai_env = {
            **env,
            "PAPERCHAT_EMBEDDINGS": "openai",
            "PAPERCHAT_EMBEDDINGS_MODEL": "fake-embed",
            "OPENAI_BASE_URL": fake.base_url,
            "OPENAI_API_KEY": "test-key",
        }

        result = run(openai_env, "ingest", "abstracts", str(path), "--json")
        inputs = [r.body["input"] for r in fake.requests if r.path.endswith("/embeddings")]
        expected = fake.vector_for("T\n\nAbout retrieval.")

    assert result.code == 0, result.stderr
    assert ["T\n\nAbout retrieval."] in inputs
    store = ChunkStore(open_chroma(Path(env["PAPERCHAT_DATA_DIR"]) / "chroma"), None)
    stored = store.collection.get(include=["embeddings"])
    assert store.collection.metadata == {"embedder": "openai/fake-embed"}
    vector = np.asarray(stored["embeddings"])[0]
    assert np.allclose(vector, expected / np.linalg.norm(expected), atol=1e-5)


def test_ingest_leaves_nothing_in_the_data_dir_other_users_can_read(
    env: dict[str, str], tmp_path: Path
) -> None:
    good = {"id": "2101.00001", "title": "T", "abstract": "About retrieval.", "authors": "A"}
    path = tmp_path / "meta.jsonl"
    path.write_text(json.dumps(good) + "\n")

    result = run(env, "ingest", "abstracts", str(path), "--json")

    data = Path(env["PAPERCHAT_DATA_DIR"])
    assert result.code == 0, result.stderr
    open_to_others = [str(p) for p in [data, *data.rglob("*")] if p.stat().st_mode & 0o077]
    assert open_to_others == []
    assert (data / "catalog.sqlite").is_file()
    assert (data / "chroma").is_dir()


def test_ingest_report_names_the_pdf_whose_pages_were_read_as_plain_text(
    env: dict[str, str], tmp_path: Path
) -> None:
    words = "the reader finds the passage that answers the question in the index"
    lines = [pdf_fixtures.text_at(72, 700 - 14 * i, 11, f"{words} {i}.") for i in range(30)]
    (tmp_path / "pdfs").mkdir()
    rotated = pdf_fixtures.write_layout_pdf(tmp_path / "pdfs" / "rotated.pdf", [lines], 90)

    result = run(env, "ingest", "pdfs", str(rotated), "--json")
    # Into another index: this one has the file already, and would leave it unread.
    summary = run(
        env | {"PAPERCHAT_DATA_DIR": str(tmp_path / "other")}, "ingest", "pdfs", str(rotated)
    )

    assert result.code == 0, result.stderr
    assert result.json["pages_fallback"] == {str(rotated.resolve()): 1}
    assert "1 page(s) read as plain text" in summary.stdout
