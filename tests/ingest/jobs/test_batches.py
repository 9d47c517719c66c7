"""A metadata file cut into batches: together they read every line once, each job only its
own, and a bad line costs that line, named by its number."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ingest.index.records import Paper
from ingest.jobs.batches import read_batch, split
from ingest.report import Skipped


def _record(n: int) -> str:
    return json.dumps({"id": f"2101.{n:05d}", "title": f"Paper {n}", "abstract": f"About {n}."})


@pytest.fixture(params=["plain", "gzip"])
def metadata(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    lines = [_record(n) for n in range(1, 24)]
    lines[6] = "{not json"
    lines[10] = ""
    lines[14] = json.dumps({"id": "2101.99999", "title": "x" * 300, "abstract": "y"})
    text = "\n".join(lines) + "\n"
    if request.param == "plain":
        path = tmp_path / "records.jsonl"
        path.write_text(text, encoding="utf-8")
    else:
        path = tmp_path / "records.jsonl.gz"
        path.write_bytes(gzip.compress(text.encode()))
    return path


def test_batches_read_every_line_once(metadata: Path) -> None:
    batches = list(split(metadata, lines=5))

    items = [item for batch in batches for item in read_batch(batch, max_record_bytes=200)]

    assert [(b.first_line, b.lines) for b in batches] == [(1, 5), (6, 5), (11, 5), (16, 5), (21, 3)]
    papers = [i.id for i in items if isinstance(i, Paper)]
    assert papers == [f"2101.{n:05d}" for n in range(1, 24) if n not in (7, 11, 15)]
    skipped = {i.source: i.reason for i in items if isinstance(i, Skipped)}
    name = metadata.name
    assert set(skipped) == {f"{name}:7", f"{name}:15"}
    assert skipped[f"{name}:7"].startswith("not a JSON record")
    assert "over the limit of 200 bytes" in skipped[f"{name}:15"]


def test_a_batch_reads_only_its_own_lines(metadata: Path) -> None:
    third = list(split(metadata, lines=5))[2]

    items = list(read_batch(third))  # lines 11 to 15; 11 is blank, 15 the long record

    assert [i.id for i in items if isinstance(i, Paper)] == [
        "2101.00012", "2101.00013", "2101.00014", "2101.99999"
    ]  # fmt: skip


def test_last_line_without_newline_is_a_batch_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text(_record(1) + "\n" + _record(2), encoding="utf-8")

    batches = list(split(path, lines=1))

    assert [(b.first_line, b.lines) for b in batches] == [(1, 1), (2, 1)]
    assert [i.id for i in read_batch(batches[1]) if isinstance(i, Paper)] == ["2101.00002"]
