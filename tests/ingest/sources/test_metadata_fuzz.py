"""Fuzzing the metadata reader over mutations of the real snapshot sample: whatever the
bytes, reading a file yields papers and skipped lines (or refuses the file with
MetadataError), within a time and a memory limit, and never raises anything else."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingest.index.records import Paper
from ingest.pdf.isolation import PDF_MAX_MB
from ingest.report import Skipped
from ingest.sources.metadata import MetadataError, read_metadata
from tests.support.data import OAI_SAMPLE
from tests.support.worlds.fuzzing import Mutant, Sandbox, fuzz_settings, mutations, splices

pytestmark = pytest.mark.timeout(300)

# The sample's first records: every field of the snapshot layout, small enough to read fast.
SAMPLE = b"".join(OAI_SAMPLE.read_bytes().splitlines(keepends=True)[:20])
GZIPPED = gzip.compress(SAMPLE, mtime=0)
DEADLINE_S = 10
FUZZ = fuzz_settings(examples=300, deadline_s=DEADLINE_S)


def read_outcome(path: str) -> str:
    """Run in the worker: "read" when every item is a paper or a skipped line, "refused"
    for MetadataError, else what went wrong."""
    try:
        items = list(read_metadata(Path(path)))
    except MetadataError:
        return "refused"
    except Exception as e:  # noqa: BLE001 - the property under test: no other error escapes
        return f"{type(e).__name__}: {e}"
    strays = [item for item in items if not isinstance(item, Paper | Skipped)]
    return f"not papers or skipped lines: {strays[:3]!r}" if strays else "read"


@pytest.fixture(name="sandbox")
def sandbox_fixture() -> Iterator[Sandbox]:
    sandbox = Sandbox(timeout_s=DEADLINE_S, memory_limit_mb=PDF_MAX_MB)
    yield sandbox
    sandbox.close()


def _outcome(sandbox: Sandbox, path: Path, data: bytes) -> object:
    path.write_bytes(data)
    return sandbox.run(read_outcome, str(path))


@FUZZ
@given(
    mutant=st.one_of(
        mutations("sample", SAMPLE), splices(("sample", SAMPLE), ("reversed", SAMPLE[::-1]))
    )
)
def test_a_mutated_metadata_file_is_read_or_refused(
    sandbox: Sandbox, tmp_path: Path, mutant: Mutant
) -> None:
    outcome = _outcome(sandbox, tmp_path / "records.jsonl", mutant.data)

    assert outcome == "read"


@FUZZ
@given(mutant=st.one_of(mutations("gzipped", GZIPPED), mutations("sample", SAMPLE)))
def test_a_mutated_gzipped_metadata_file_is_read_or_refused(
    sandbox: Sandbox, tmp_path: Path, mutant: Mutant
) -> None:
    data = mutant.data if mutant.how.startswith("gzipped") else gzip.compress(mutant.data, mtime=0)

    outcome = _outcome(sandbox, tmp_path / "records.jsonl.gz", data)

    assert outcome == "read"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"[" * 100_000, "malformed JSON: nested deeper than a record can be"),
        (b"1" * 4301, "malformed JSON: Exceeds the limit (4300 digits)"),
    ],
)
def test_a_line_json_cannot_hold_is_skipped_with_its_reason(
    tmp_path: Path, line: bytes, reason: str
) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(SAMPLE.splitlines(keepends=True)[0] + line + b"\n")

    items = list(read_metadata(path))

    assert [type(item) for item in items] == [Paper, Skipped]
    assert isinstance(items[1], Skipped)
    assert items[1].reason.startswith(reason)


def test_a_corrupt_gzip_stream_keeps_what_was_read_and_says_where_it_broke(
    tmp_path: Path,
) -> None:
    path = tmp_path / "records.jsonl.gz"
    # A gzip header, then a deflate block of a type that does not exist.
    path.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x07")

    items = list(read_metadata(path))

    assert len(items) == 1
    assert isinstance(items[0], Skipped)
    assert items[0].reason.startswith("file is unreadable past this point: ")
    assert "invalid block type" in items[0].reason
