"""The library benchmark's questions are of the promised kinds and shape, new, and hold what
the papers say; its scoring counts a kind right only when every gold paper is there."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

from bench.quality.facts import Reply, held_out, read_questions
from bench.quality.library import KINDS, QUESTIONS, gold_of, score
from tests.support.data import ABSTRACTS, EVAL, PDFS, ROOT

# The two ACL Anthology papers and the two PDFs not named by their arXiv id, by their
# ids in the index's catalog.
KNOWN = {
    "f83d85b272d5efd7": "2020.acl-main.447",
    "9a9eb47ba637cafc": "2023.eacl-main.121",
    "1412.6980": "Adam_ A Method for Stochastic Optimization",
    "1803.07113": "Zhu et al. - 2020 - Zero-Shot Detection",
}
AT_LEAST = {
    "fact": 40, "who_when": 20, "definition": 15, "follow_up": 20,
    "comparison": 15, "citation_graph": 15, "which_paper": 15, "plain": 15,
}  # fmt: skip
SEVERAL = ("comparison", "citation_graph")
ROWS = read_questions(QUESTIONS)
# Ligatures a PDF draws as one private glyph, left out of both sides when text is compared.
_LIGATURES = re.compile(r"ffi|ffl|ff|fi|fl|[\ue000-\uf8ff]")


def letters(text: str) -> str:
    """Letters and digits only, in lower case, the ligatures left out."""
    return _LIGATURES.sub("", re.sub(r"[\W_]+", "", text.lower()))


def pdf_of(paper: str) -> Path | None:
    if paper in KNOWN:
        return PDFS / f"{KNOWN[paper]}.pdf"
    found = sorted(PDFS.glob(f"{paper}v*.pdf"))
    return found[0] if found else None


@cache
def page_letters(path: Path, page: int) -> str:
    document = pdfium.PdfDocument(path)
    try:
        return letters(document[page - 1].get_textpage().get_text_range())
    finally:
        document.close()


@cache
def abstracts() -> dict[str, dict[str, Any]]:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        return {record["id"]: record for record in map(json.loads, lines)}


def question_key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@cache
def earlier_questions() -> frozenset[str]:
    """Every question of the other question files: the repository's and the shared ones."""
    files = [*sorted((ROOT / "bench" / "data").glob("*.jsonl")), *sorted(EVAL.glob("*.jsonl"))]
    found: set[str] = set()
    for path in files:
        if path.resolve() == QUESTIONS.resolve():
            continue
        for row in read_questions(path):
            found.update(
                question_key(q) for q in [row.get("question", ""), *row.get("history", [])]
            )
    return frozenset(found - {""})


def evidence_of(row: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    """(gold paper, page, evidence) for each gold paper of a row."""
    if row["kind"] in SEVERAL:
        return list(zip(row["gold_ids"], row["page"], row["evidence"], strict=True))
    return [(row["gold_id"], row["page"], row["evidence"])]


def shape_problems(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """What is wrong with a question file's rows, each problem naming its row."""
    problems = [f"{kind}: {n} rows, fewer than {AT_LEAST[kind]}" for kind, n in
                _kind_counts(rows).items() if n < AT_LEAST[kind]]  # fmt: skip
    keys = Counter(question_key(r["question"]) for r in rows)
    for row in rows:
        problems += [f"{row['qid']}: {problem}" for problem in _row_problems(row, keys)]
    return problems


def _kind_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counts = Counter(row["kind"] for row in rows)
    return {kind: counts[kind] for kind in KINDS}


def _row_problems(row: Mapping[str, Any], keys: Counter[str]) -> list[str]:
    problems = []
    if row["kind"] not in KINDS:
        problems.append(f"kind {row['kind']!r}")
    if row["split"] != ("held_out" if held_out(row["qid"]) else "dev"):
        problems.append(f"split {row['split']!r}")
    if keys[question_key(row["question"])] > 1:
        problems.append("asked twice")
    if {question_key(q) for q in [row["question"], *row["history"]]} & earlier_questions():
        problems.append("asked in another question file")
    if len(row["history"]) != (row["kind"] == "follow_up"):
        problems.append(f"{len(row['history'])} earlier turns")
    fewest = {"comparison": 2, "citation_graph": 1}.get(row["kind"], 0)
    if (row["kind"] in SEVERAL) != ("gold_ids" in row) or len(row.get("gold_ids", [])) < fewest:
        return [*problems, "gold_id or gold_ids not as its kind has them"]
    for paper, _, evidence in evidence_of(row):
        if paper not in abstracts() and pdf_of(paper) is None:
            problems.append(f"gold {paper} is neither an abstract nor a PDF")
        if not str(evidence).strip():
            problems.append(f"no evidence for {paper}")
    groups = row["answer_terms"]
    if (row["kind"] != "citation_graph" and not groups) or not all(
        group and all(term.strip() for term in group) for group in groups
    ):
        problems.append("no answer terms, or an empty one")
    return problems


def test_the_question_file_has_no_shape_problems() -> None:
    assert shape_problems(ROWS) == []


def test_a_broken_question_file_is_caught() -> None:
    broken = [dict(row) for row in ROWS[:3]]
    broken[0]["split"] = "held_out"
    broken[1]["gold_id"] = "9999.99999"
    broken[2]["evidence"] = " "
    copied = {**ROWS[3], "question": "How many layers does BERT-large have?"}
    twice = {**ROWS[4], "qid": "l999"}

    problems = shape_problems([*broken, copied, twice, ROWS[4]])

    assert f"{ROWS[0]['qid']}: split 'held_out'" in problems
    assert f"{ROWS[1]['qid']}: gold 9999.99999 is neither an abstract nor a PDF" in problems
    assert f"{ROWS[2]['qid']}: no evidence for {ROWS[2]['gold_id']}" in problems
    assert f"{ROWS[3]['qid']}: asked in another question file" in problems
    assert f"{ROWS[4]['qid']}: asked twice" in problems
    assert "fact: 6 rows, fewer than 40" in problems


def test_every_third_question_is_held_out() -> None:
    held = [row["qid"] for row in ROWS if row["split"] == "held_out"]

    assert held[:2] == ["l003", "l006"]
    assert len(held) == len(ROWS) // 3


def test_the_questions_are_about_thirty_pdfs_and_papers_only_in_the_abstracts() -> None:
    papers = {paper for row in ROWS for paper in gold_of(row)}

    assert len({p for p in papers if pdf_of(p) is not None}) >= 30
    assert len({p for p in papers if p in abstracts()}) >= 10


PAGED = [
    (row["qid"], paper, page, evidence)
    for row in ROWS
    for paper, page, evidence in evidence_of(row)
    if page is not None
]


@pytest.mark.parametrize(("qid", "paper", "page", "evidence"), PAGED, ids=[p[0] for p in PAGED])
def test_the_evidence_is_on_the_page_given(qid: str, paper: str, page: int, evidence: str) -> None:
    path = pdf_of(paper)

    assert path is not None, qid
    assert letters(evidence) in page_letters(path, page), qid


def test_evidence_from_an_abstract_is_in_it() -> None:
    quoted = [
        (row["qid"], paper, evidence)
        for row in ROWS
        for paper, page, evidence in evidence_of(row)
        if page is None and paper in abstracts() and not evidence.startswith("catalog:")
    ]

    assert len(quoted) >= 8
    for qid, paper, evidence in quoted:
        assert " ".join(evidence.split()) in " ".join(abstracts()[paper]["abstract"].split()), qid


def test_the_record_quoted_for_an_abstract_is_the_records() -> None:
    records = [
        (row["qid"], paper, evidence)
        for row in ROWS
        for paper, _, evidence in evidence_of(row)
        if paper in abstracts() and evidence.startswith("catalog: authors=")
    ]

    assert len(records) >= 10
    for qid, paper, evidence in records:
        record = abstracts()[paper]
        assert f"authors={' '.join(record['authors'].split())};" in evidence, qid
        assert f"categories={record['categories']}" in evidence, qid


def reply(text: str, *cited: str) -> Reply:
    return Reply(text, tuple(f"arXiv:{c}" for c in cited), False)


COMPARISON = {
    "kind": "comparison", "gold_ids": ["2205.01068", "2204.02311"],
    "answer_terms": [["175B"], ["540B"]],
}  # fmt: skip
GRAPH = {
    "kind": "citation_graph", "gold_ids": ["2004.04906", "2005.11401", "2007.01282"],
    "answer_terms": [], "about": "2002.08909",
}  # fmt: skip


def test_a_comparison_is_right_only_when_both_papers_are_cited() -> None:
    text = "OPT-175B has 175B parameters; PaLM has 540B."

    one = score(reply(text, "2205.01068"), COMPARISON, {})
    both = score(reply(text, "2205.01068", "2204.02311v1"), COMPARISON, {})

    assert (one["right"], one["gold recall"]) == (0.0, 0.5)
    assert (both["right"], both["gold recall"]) == (1.0, 1.0)


def test_a_citation_graph_answer_counts_papers_named_by_title_or_id() -> None:
    titles = {"2004.04906": "Dense Passage Retrieval for Open-Domain Question Answering"}
    text = "Cited by dense passage retrieval for open-domain question answering and 2005.11401."

    figures = score(reply(text, "2002.08909", "2104.08663"), GRAPH, titles)

    assert figures["gold recall"] == pytest.approx(2 / 3)
    assert figures["right"] == 1.0
    assert figures["other cited"] == 1.0  # BEIR; the paper asked about is not counted


def test_a_citation_graph_answer_naming_too_few_papers_is_wrong() -> None:
    figures = score(reply("Only [arXiv:2007.01282].", "2007.01282"), GRAPH, {})

    assert figures["gold recall"] == pytest.approx(1 / 3)
    assert figures["right"] == 0.0


FACT = {
    "qid": "l001", "kind": "fact", "question": "How many layers does BERT-large have?",
    "history": [], "gold_id": "1810.04805", "answer_terms": [["24"]],
}  # fmt: skip


def test_an_answer_leads_with_the_fact_only_when_its_first_cited_claim_states_it() -> None:
    first = "BERT-LARGE has L=24 layers [arXiv:1810.04805]. It is bidirectional [arXiv:1810.04805]."
    later = "BERT is bidirectional [arXiv:1810.04805]. BERT-LARGE has L=24 [arXiv:1810.04805]."

    leading = score(reply(first, "1810.04805"), FACT, {})
    trailing = score(reply(later, "1810.04805"), FACT, {})

    assert (leading["right"], leading["leads"]) == (1.0, 1.0)
    assert (trailing["right"], trailing["leads"]) == (1.0, 0.0)


def test_a_citation_within_the_first_sentence_does_not_end_the_opening() -> None:
    row = {**FACT, "kind": "who_when", "answer_terms": [["Devlin"]]}
    text = "BERT: Pre-training [arXiv:1810.04805] is by Jacob Devlin. [arXiv:1810.04805]"

    assert score(reply(text, "1810.04805"), row, {})["leads"] == 1.0
