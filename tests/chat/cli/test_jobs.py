"""`paperchat jobs` and `paperchat worker` as a user runs them: work queued in PostgreSQL and
counted, and a clear error without a PostgreSQL database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.jobs.enqueue import file_sha256
from tests.conftest import postgres_schema
from tests.support.data import PDFS
from tests.support.running.cli import environment, run

pytestmark = pytest.mark.integration


@pytest.fixture
def env(tmp_path: Path, models_cache: Path) -> Iterator[dict[str, str]]:
    with postgres_schema() as url:
        yield environment(tmp_path / "data", models_cache, PAPERCHAT_DATABASE_URL=url)


def test_queued_pdfs_are_counted(env: dict[str, str], tmp_path: Path) -> None:
    pdfs = sorted(PDFS.glob("*.pdf"))[:3]

    queued = run(env, "jobs", "enqueue", "pdfs", *map(str, pdfs), str(tmp_path / "absent.pdf"))
    status = run(env, "jobs", "status", "--json")
    text = run(env, "jobs", "status")

    assert queued.code == 0, queued.stderr
    assert queued.stdout.strip() == "queued 3 jobs (one PDF each)"
    assert "absent.pdf: no such file or folder" in queued.stderr
    assert status.json["todo"] == 3
    assert sum(status.json.values()) == 3
    assert text.stdout.strip() == "queued 3, running 0, done 0, failed 0"
    kept = sorted(p.name for p in (tmp_path / "data" / "pdf-store").rglob("*.pdf"))
    assert kept == sorted(f"{file_sha256(p)}.pdf" for p in pdfs)  # where every worker reads


def test_pdfs_queued_by_path_stay_where_they_are(env: dict[str, str], tmp_path: Path) -> None:
    pdf = sorted(PDFS.glob("*.pdf"))[0]

    queued = run(env, "jobs", "enqueue", "pdfs", str(pdf), "--by-path", "--json")

    assert queued.json == {"jobs": 1}
    assert not (tmp_path / "data" / "pdf-store").exists()


def test_metadata_file_is_queued_in_batches(env: dict[str, str], tmp_path: Path) -> None:
    metadata = tmp_path / "records.jsonl"
    metadata.write_text("".join(f'{{"id": "2101.{n:05d}"}}\n' for n in range(25)))

    queued = run(env, "jobs", "enqueue", "abstracts", str(metadata), "--batch", "10", "--json")
    missing = run(env, "jobs", "enqueue", "abstracts", str(tmp_path / "none.jsonl"))

    assert queued.json == {"jobs": 3}
    assert missing.code == 2
    assert "no such metadata file" in missing.stderr


@pytest.mark.parametrize("args", [("worker",), ("jobs", "status")])
def test_without_postgresql_the_queue_is_a_clear_error(
    tmp_path: Path, models_cache: Path, args: tuple[str, ...]
) -> None:
    env = environment(tmp_path / "data", models_cache)

    result = run(env, *args, timeout=120)

    assert result.code == 2
    assert result.stderr.strip() == (
        "paperchat: error: the ingest queue needs PAPERCHAT_DATABASE_URL to name PostgreSQL"
        " (the queue and the catalog the workers share live there)"
    )
