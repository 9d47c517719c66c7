from __future__ import annotations

from pathlib import Path

import pytest

from ingest.index.filters import Filters, UnresolvedAuthor
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.records import Chunk, Paper


def _chunks(count: int, text: str, paper_id: str = "1706.03762") -> list[Chunk]:
    paper = Paper(id=paper_id, title="Attention", categories=("cs.CL",), published="2017-06-12")
    return [
        Chunk(f"{paper_id}#abstract-{i}@x", paper_id, "abstract", i, text, "Abstract", 0, 0, paper)
        for i in range(count)
    ]


@pytest.fixture
def lexical(tmp_path: Path) -> LexicalIndex:
    index = LexicalIndex(tmp_path / "lexical")
    index.replace_units(
        [("1706.03762", "abstract")], _chunks(30, "The Transformer relies on attention.")
    )
    return index


def test_a_misspelled_term_matches_the_common_spelling(lexical: LexicalIndex) -> None:
    fixed = lexical.search("transfromer", 5)
    strict = lexical.search("transfromer", 5, fix_typos=False)

    assert len(fixed) == 5
    assert strict == []


def test_a_correct_term_is_not_rewritten(lexical: LexicalIndex) -> None:
    hits = lexical.search("attention", 50)

    assert len(hits) == 30
    assert all(paper == "1706.03762" for _, paper, _ in hits)


def test_filters_narrow_the_hits(lexical: LexicalIndex) -> None:
    lexical.replace_units([("2005.11401", "abstract")], _chunks(3, "Attention.", "2005.11401"))

    by_paper = lexical.search("attention", 50, Filters(paper_ids=("2005.11401",)))
    by_category = lexical.search("attention", 50, Filters(categories=("cs.CV",)))
    by_date = lexical.search(
        "attention", 50, Filters(published_from="2017-06-01", published_to="2017-06-30")
    )
    since = lexical.search("attention", 50, Filters(published_from="2017-06-13"))
    until = lexical.search("attention", 50, Filters(published_to="2017-06-12"))

    assert {p for _, p, _ in by_paper} == {"2005.11401"}
    assert by_category == []
    assert len(by_date) == 33
    assert since == []
    assert len(until) == 33


def test_replacing_a_unit_removes_its_old_chunks(lexical: LexicalIndex) -> None:
    lexical.replace_units([("1706.03762", "abstract")], _chunks(2, "Recurrence is gone."))

    assert lexical.search("attention", 50) == []
    assert lexical.count() == 2


def test_extra_terms_count_by_their_weight(lexical: LexicalIndex) -> None:
    lexical.replace_units(
        [("2005.11401", "abstract")], _chunks(1, "Retrieval augments generation.", "2005.11401")
    )

    plain = lexical.search("attention", 50)
    light = lexical.search("attention", 50, extra=[("retriev", 0.01)])
    heavy = lexical.search("attention", 50, extra=[("retriev", 10.0)])

    assert "2005.11401" not in {p for _, p, _ in plain}
    assert light[0][1] == "1706.03762"
    assert light[-1][1] == "2005.11401"
    assert heavy[0][1] == "2005.11401"
    assert lexical.document_frequencies(["retriev", "attent", "absent"]) == {
        "retriev": 1,
        "attent": 30,
        "absent": 0,
    }


def test_an_author_filters_by_the_papers_it_was_resolved_to(lexical: LexicalIndex) -> None:
    lexical.replace_units([("2005.11401", "abstract")], _chunks(3, "Attention.", "2005.11401"))
    author = Filters(author="Patrick Lewis")

    theirs = lexical.search("attention", 50, author.within(["2005.11401"]))

    assert {p for _, p, _ in theirs} == {"2005.11401"}
    with pytest.raises(UnresolvedAuthor):
        lexical.search("attention", 50, author)


# A process that takes the index's writer, says so, holds it for a second and commits.
HOLDER = """
import sys, time
from pathlib import Path
from ingest.index.lexical.bm25 import LexicalIndex, _document
from tests.ingest.index.lexical.test_bm25 import _chunks
index = LexicalIndex(Path(sys.argv[1]))
with index._writing() as writer:
    print("writing", flush=True)
    time.sleep(1.0)
    for chunk in _chunks(2, "held by another process", "2005.11401"):
        writer.add_document(_document(chunk))
"""


def test_a_write_waits_for_another_processs_commit_instead_of_failing(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "lexical"
    ours = LexicalIndex(path)
    repo = Path(__file__).resolve().parents[4]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], cwd=repo, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    said = holder.stdout.readline().strip()

    ours.replace_units([("1706.03762", "abstract")], _chunks(3, "written while it was held"))
    holder.wait(timeout=60)
    holder.stdout.close()

    assert said == "writing"
    assert holder.returncode == 0
    assert ours.count() == 5  # both writes, one after the other
