"""What `paperchat ingest` skips, with its reason and exit code 1, and how it fails: one
line and exit code 2, a full disk named, a run's error kept in the data dir."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.runs import run_state
from tests.chat.cli.test_ingest import (  # noqa: F401 - env_fixture: a pytest fixture, used by name
    SMALL,
    copy_pdfs,
    env_fixture,
)
from tests.support.data import ABSTRACTS, PDFS
from tests.support.running.cli import run
from tests.support.running.disk import tiny_disk
from tests.support.worlds import pdf_fixtures

# Each test runs `paperchat ingest` in a process of its own, loading the embedder.
pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]


def test_bad_pdfs_are_skipped_with_reasons_and_good_ones_kept(
    env: dict[str, str], tmp_path: Path
) -> None:
    folder = copy_pdfs([SMALL[0]], tmp_path / "pdfs")
    bad = {
        "zero bytes": pdf_fixtures.write_empty_file(folder / "empty.pdf"),
        "truncated": pdf_fixtures.write_truncated_pdf(folder / "cut.pdf", PDFS / SMALL[1]),
        "encrypted": pdf_fixtures.write_encrypted_pdf(folder / "locked.pdf"),
        "image only": pdf_fixtures.write_image_only_pdf(folder / "scan.pdf"),
        "not a PDF": pdf_fixtures.write_not_a_pdf(folder / "page.pdf"),
    }
    missing = tmp_path / "nowhere.pdf"

    first = run(env, "ingest", "pdfs", str(folder), str(missing), "--json")
    second = run(env, "ingest", "pdfs", str(folder), str(missing), "--json")

    assert first.code == 1
    reasons = {Path(s["source"]).name: s["reason"] for s in first.json["skipped"]}
    assert set(reasons) == {p.name for p in bad.values()} | {"nowhere.pdf"}
    assert "no such file" in reasons["nowhere.pdf"]
    for kind, path in bad.items():
        assert reasons[path.name], kind
    assert first.json["added_papers"] == 1
    assert second.code == 1
    assert second.json["unchanged_papers"] == 1
    assert second.json["chunks_added"] == 0
    assert len(second.json["skipped"]) == len(first.json["skipped"])


def test_bad_metadata_lines_are_skipped_and_exit_code_is_one(
    env: dict[str, str], tmp_path: Path
) -> None:
    good = {"id": "2101.00001", "title": "T", "abstract": "About retrieval.", "authors": "A"}
    lines = [json.dumps(good), "{not json", json.dumps({**good, "id": None}), json.dumps(good)]
    path = tmp_path / "meta.jsonl"
    path.write_text("\n".join(lines) + "\n")

    result = run(env, "ingest", "abstracts", str(path), "--json")

    assert result.code == 1
    assert result.json["added_papers"] == 1
    assert [s["source"] for s in result.json["skipped"]] == [
        "meta.jsonl:2",
        "meta.jsonl:3",
        "meta.jsonl:4",
    ]


def test_lone_surrogate_in_metadata_skips_its_line_and_ingests_the_rest(
    env: dict[str, str], tmp_path: Path
) -> None:
    good = {"id": "2101.00001", "title": "T", "abstract": "About retrieval.", "authors": "A"}
    bad = {**good, "id": "2101.00002", "abstract": "About \ud800 retrieval."}
    path = tmp_path / "meta.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")

    result = run(env, "ingest", "abstracts", str(path), "--json")

    assert result.code == 1, result.stderr
    assert result.json["added_papers"] == 1
    assert [s["source"] for s in result.json["skipped"]] == ["meta.jsonl:2"]
    assert "lone surrogate" in result.json["skipped"][0]["reason"]


def test_pdf_over_the_memory_limit_is_skipped_and_the_run_goes_on(
    env: dict[str, str], tmp_path: Path
) -> None:
    folder = copy_pdfs(["2304.02623v1.pdf"], tmp_path / "pdfs")
    bomb = pdf_fixtures.write_inflating_pdf(folder / "2101.00001v1.pdf", b"(ab) Tj ", 300 << 20)

    result = run({**env, "PAPERCHAT_PDF_MAX_MB": "400"}, "ingest", "pdfs", str(folder), "--json")

    assert result.code == 1, result.stderr
    assert result.json["added_papers"] == 1
    assert [s["source"] for s in result.json["skipped"]] == [str(bomb.resolve())]
    assert result.json["skipped"][0]["reason"].startswith("over the memory limit of 400 MB")


def test_configuration_errors_exit_two_with_one_line(env: dict[str, str], tmp_path: Path) -> None:
    missing = run(env, "ingest", "abstracts", str(tmp_path / "none.jsonl"))
    usage = run(env, "ingest", "arxiv")
    bad_url = run(
        {**env, "PAPERCHAT_CHROMA_URL": "ftp://127.0.0.1:1"}, "ingest", "pdfs", str(tmp_path)
    )

    for result in (missing, usage, bad_url):
        assert result.code == 2
        assert "Traceback" not in result.stderr
    assert missing.stderr.strip().count("\n") == 0
    assert "none.jsonl" in missing.stderr
    assert "not an http" in bad_url.stderr


@pytest.fixture(name="tiny_disk")
def tiny_disk_fixture(tmp_path: Path) -> Iterator[Path]:
    with tiny_disk(tmp_path / "disk") as disk:
        yield disk


def test_full_disk_is_one_line_naming_the_data_dir(env: dict[str, str], tiny_disk: Path) -> None:
    data = tiny_disk / "data"

    result = run(
        {**env, "PAPERCHAT_DATA_DIR": str(data)},
        "ingest",
        "abstracts",
        str(ABSTRACTS),
        "--limit",
        "3000",
    )

    *progress, error = result.stderr.strip().splitlines()
    assert result.code == 2, result.stderr
    assert error.startswith(
        f"paperchat: error: the disk holding the data dir {str(data)!r} is full ("
    )
    assert "Traceback" not in result.stderr
    assert all(line.startswith("abstracts: ") for line in progress), progress


def test_a_pdf_run_ended_by_an_error_says_so_in_the_data_dir(
    env: dict[str, str], tmp_path: Path
) -> None:
    data = Path(env["PAPERCHAT_DATA_DIR"])
    data.mkdir(parents=True)
    (data / "catalog.sqlite").write_bytes(b"not a database " * 100)
    folder = copy_pdfs(SMALL[:1], tmp_path / "pdfs")

    result = run(env, "ingest", "pdfs", str(folder))

    state = run_state(data, "pdfs")
    assert result.code == 2, result.stderr
    assert state.running is False
    assert state.error is not None
    assert state.error.startswith("the PDF reader stopped after reading 0 of 1: cannot open")
    assert state.error.endswith("file is not a database")
