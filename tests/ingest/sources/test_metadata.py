from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ingest.index.records import Paper
from ingest.report import Skipped
from ingest.sources.metadata import FIELD_LIMITS, MetadataError, paper_from_record, read_metadata
from tests.support.data import ABSTRACTS, OAI_SAMPLE


def _papers(items: list[Paper | Skipped]) -> list[Paper]:
    return [i for i in items if isinstance(i, Paper)]


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _record(paper_id: str, **fields: object) -> str:
    record = {"id": paper_id, "title": "A title", "abstract": "An abstract.", **fields}
    return json.dumps(record)


def test_full_snapshot_format_imports_every_record() -> None:
    items = list(read_metadata(OAI_SAMPLE))

    papers = _papers(items)
    assert len(papers) == 200
    assert not [i for i in items if isinstance(i, Skipped)]
    first = papers[0]
    assert first.id == "0704.0001"
    assert first.published == "2007-04-02"  # versions[0].created, not update_date
    assert first.version == "v2"
    assert first.categories == ("hep-ph",)
    assert first.title == (
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    )
    assert "\n" not in first.abstract
    assert first.abstract.startswith("A fully differential calculation")


def test_gzipped_file_reads_with_limit_and_keeps_tex() -> None:
    papers = _papers(list(read_metadata(ABSTRACTS, limit=300)))

    assert len(papers) == 300
    assert papers[0].id == "1812.06145"
    # No versions: the month the id encodes; update_date is when the record last changed.
    assert papers[0].published == "2018-12"
    assert papers[0].updated == "2025-10-13"
    assert all("\n" not in p.abstract and "  " not in p.abstract for p in papers)
    assert any("$" in p.abstract for p in papers)  # TeX kept as written


def test_categories_keep_arxiv_codes_and_drop_class_codes() -> None:
    paper = _papers(list(read_metadata(ABSTRACTS, limit=1)))[0]

    assert paper.categories == ("cs.CV", "cs.AI", "cs.HC", "cs.LG", "stat.ML")
    assert paper.primary_category == "cs.CV"


def test_bad_lines_are_skipped_with_reasons_and_good_ones_kept(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "mixed.jsonl",
        [
            _record("2101.00001"),
            '{"id": "2101.00002", "title": "broken',
            json.dumps({"title": "no id", "abstract": "text"}),
            _record("2101.00003", abstract="   "),
            _record("2101.00001", title="second copy"),
            "[1, 2]",
            _record("not an id"),
            _record("2101.00004v3"),
        ],
    )

    items = list(read_metadata(path))

    assert [p.id for p in _papers(items)] == ["2101.00001", "2101.00004"]
    reasons = {s.source: s.reason for s in items if isinstance(s, Skipped)}
    assert reasons["mixed.jsonl:2"].startswith("malformed JSON")
    assert reasons["mixed.jsonl:3"] == "record has no id"
    assert reasons["mixed.jsonl:4"] == "record 2101.00003 has no abstract"
    assert "duplicate id 2101.00001" in reasons["mixed.jsonl:5"]
    assert reasons["mixed.jsonl:6"] == "line is not a JSON object"
    assert "not an arXiv id" in reasons["mixed.jsonl:7"]


def test_old_style_ids_and_versions_are_split(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "old.jsonl", [_record("hep-th/9901001v2")])

    paper = _papers(list(read_metadata(path)))[0]

    assert (paper.id, paper.version) == ("hep-th/9901001", "v2")


def test_truncated_gzip_keeps_lines_before_the_damage(tmp_path: Path) -> None:
    whole = gzip.compress("".join(_record(f"2101.{n:05d}") + "\n" for n in range(2000)).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])

    items = list(read_metadata(path))

    assert 0 < len(_papers(items)) < 2000
    assert isinstance(items[-1], Skipped)
    assert "unreadable" in items[-1].reason


def test_unreadable_file_raises_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MetadataError, match="cannot read"):
        list(read_metadata(tmp_path / "missing.jsonl"))


def test_invalid_utf8_byte_costs_only_its_line(tmp_path: Path) -> None:
    lines = [_record(f"2101.{n:05d}").encode() for n in range(1, 21)]
    lines[4] = lines[4].replace(b"An abstract.", b"An abstract \xff.")
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    items = list(read_metadata(path))

    assert len(_papers(items)) == 19
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [(s.source, s.reason) for s in skipped] == [
        ("bytes.jsonl:5", "not UTF-8: byte 0xff at byte 67")
    ]


def test_lone_surrogate_in_a_record_is_a_skipped_line(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "surrogate.jsonl",
        [
            _record("2101.00001"),
            _record("2101.00002", abstract="bad \ud800 half"),
            _record("2101.00003"),
        ],
    )

    items = list(read_metadata(path))

    assert [p.id for p in _papers(items)] == ["2101.00001", "2101.00003"]
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [s.source for s in skipped] == ["surrogate.jsonl:2"]
    assert skipped[0].reason == (
        "record 2101.00002: the abstract is not valid Unicode:"
        " a lone surrogate U+D800 at character 5"
    )


def test_record_over_the_size_cap_is_skipped_unread(tmp_path: Path) -> None:
    huge = _record("2101.00002", abstract="word " * 300_000)
    path = _write_lines(
        tmp_path / "huge.jsonl", [_record("2101.00001"), huge, _record("2101.00003")]
    )

    items = list(read_metadata(path, max_record_bytes=100_000))

    assert [p.id for p in _papers(items)] == ["2101.00001", "2101.00003"]
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [s.source for s in skipped] == ["huge.jsonl:2"]
    assert skipped[0].reason == (
        f"record is {len(huge) + 1} bytes, over the limit of 100000 bytes"
        " (PAPERCHAT_MAX_RECORD_BYTES)"
    )


def test_gzipped_file_with_a_bad_byte_keeps_the_other_lines(tmp_path: Path) -> None:
    lines = [_record(f"2101.{n:05d}").encode() for n in range(1, 6)]
    lines[1] = b'{"id": "2101.00002", "title": "\xc3(", "abstract": "x"}'
    path = tmp_path / "bytes.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))

    items = list(read_metadata(path))

    assert [p.id for p in _papers(items)] == [
        "2101.00001",
        "2101.00003",
        "2101.00004",
        "2101.00005",
    ]
    assert [i.source for i in items if isinstance(i, Skipped)] == ["bytes.jsonl.gz:2"]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"title": "T" * 200_000}, "the title is 200000 characters, over the limit of 1000"),
        (
            {"abstract": "word " * 5_000},
            "the abstract is 24999 characters, over the limit of 20000",
        ),
        ({"comments": "c" * 5_001}, "the comments is 5001 characters, over the limit of 5000"),
        (
            {"journal-ref": "J" * 1_001},
            "the journal-ref is 1001 characters, over the limit of 1000",
        ),
        ({"doi": "10.1000/" + "d" * 200}, "the doi is 208 characters, over the limit of 200"),
        (
            {"categories": "cs.CL " * 400},
            "the categories is 2399 characters, over the limit of 2000",
        ),
        (
            {"authors": ", ".join(f"A{n} B" for n in range(10_001))},
            "the author list has 10001 names, over the limit of 10000",
        ),
        (
            {"authors": "Ada Lovelace, " + "X" * 1_001},
            "an author's name is 1001 characters, over the limit of 1000",
        ),
    ],
)
def test_record_with_a_field_over_its_limit_is_skipped_with_the_reason(
    fields: dict[str, str], reason: str, tmp_path: Path
) -> None:
    lines = [_record("2101.00001"), _record("2101.00002", **fields), _record("2101.00003")]
    path = _write_lines(tmp_path / "long.jsonl", lines)

    items = list(read_metadata(path))

    assert [p.id for p in _papers(items)] == ["2101.00001", "2101.00003"]
    assert [i for i in items if isinstance(i, Skipped)] == [
        Skipped("long.jsonl:2", f"record 2101.00002: {reason}")
    ]


def test_every_real_record_fits_the_field_limits() -> None:
    items = list(read_metadata(OAI_SAMPLE))

    assert [i for i in items if isinstance(i, Skipped)] == []
    assert max(len(p.title) for p in _papers(items)) <= FIELD_LIMITS["title"]


def test_a_records_affiliations_go_after_each_name_with_their_ror_ids() -> None:
    record = {
        "id": "2401.00001",
        "title": "A title",
        "abstract": "An abstract.",
        "authors": "Noam Shazeer, Ada Lovelace and Bo Author",
        "affiliations": [
            [{"name": "Google Research", "ror": "https://ror.org/00njsd438"}, "Stanford (CA)"],
            [],
            [{"name": "Harvard University"}],
        ],
    }

    paper = paper_from_record(record)

    assert paper.authors == (
        "Noam Shazeer (Google Research ror:00njsd438; Stanford CA), Ada Lovelace,"
        " Bo Author (Harvard University)"
    )


@pytest.mark.parametrize(
    ("affiliations", "reason"),
    [
        ([[{"name": "Google", "ror": "00njsd439"}]], "its check digits are wrong"),
        ([[{"ror": "00njsd438"}]], "an affiliation without a name"),
        ([["Google"], ["Stanford"]], "one list per author"),
        ("Google", "one list per author"),
    ],
)
def test_bad_affiliations_are_refused_naming_the_record(affiliations: object, reason: str) -> None:
    record = {
        "id": "2401.00002",
        "title": "A title",
        "abstract": "An abstract.",
        "authors": "Noam Shazeer",
        "affiliations": affiliations,
    }

    with pytest.raises(ValueError, match=f"record 2401.00002: .*{reason}"):
        paper_from_record(record)
