from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.names.recognition import NameRecogniser
from chat.rag.records.answers import record_answer
from chat.rag.records.questions import (
    AUTHORS,
    CATEGORY,
    DATE,
    PAPERS_BY,
    VENUE,
    asked_field,
    compared_papers,
    paper_titled,
    read_question,
    where_paper,
)
from chat.rag.records.sources import paper_source, readable_date, record_sources, record_text
from ingest.index.catalog import Catalog
from ingest.index.name_catalog import NameCatalog
from ingest.index.records import Chunk, Paper
from tests.support.data import ABSTRACTS


def _record(paper_id: str) -> Paper:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["id"] == paper_id:
                return Paper(
                    id=row["id"], title=row["title"], abstract="", authors=row["authors"],
                    categories=tuple(row["categories"].split()), published="2019-06",
                    updated=row["update_date"], comments=row["comments"] or "",
                )  # fmt: skip
    raise LookupError(paper_id)


def test_record_questions_are_told_from_questions_about_content() -> None:
    assert asked_field("Who wrote the RETRO paper?") == AUTHORS
    assert asked_field("When was 1907.00326 submitted?") == DATE
    assert asked_field("Which venue was 1907.00326 accepted to?") == VENUE
    assert asked_field("What papers by Yang Liu are there?") == PAPERS_BY
    assert asked_field("What does RETRO retrieve?") is None


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ("What category is BEIR in?", CATEGORY),
        ("Which category does RAG belong to?", CATEGORY),
        ("What are the arXiv categories of RETRO?", CATEGORY),
        ("In which category was DPR posted?", CATEGORY),
        # A dataset's or a task's categories are the paper's content.
        ("How do they split the ILSVRC-2017 categories into seen and unseen?", None),
        ("Which categories of lawsuits does Multi-LexSum cover?", None),
        ("Can a small network sort medical scans into categories?", None),
    ],
)
def test_a_category_question_asks_for_the_papers_own(question: str, field: str | None) -> None:
    assert asked_field(question) == field


def test_dates_read_as_a_month_or_a_day() -> None:
    assert readable_date("2021-12") == "December 2021"
    assert readable_date("2021-12-07") == "7 December 2021"
    assert readable_date("") == ""


def test_the_venue_and_date_are_answered_from_the_record() -> None:
    paper = _record("1907.00326")
    source = paper_source(1, paper, record_text(paper))

    venue = "".join(record_answer("Which venue was 1907.00326 accepted to?", [source]))
    date = "".join(record_answer("When was 1907.00326 submitted?", [source]))
    authors = "".join(record_answer("Who wrote 1907.00326?", [source]))

    assert "Accepted to ACL 2019" in venue
    assert "[arXiv:1907.00326]" in venue
    assert "first submitted in June 2019" in date
    assert "Jie Cao" in authors
    assert "Vivek Srikumar" in authors
    assert source.as_event()["kind"] == "abstract"
    assert source.as_event()["part"] == "record"


def test_a_content_question_gets_no_record_answer() -> None:
    paper = _record("1907.00326")
    source = paper_source(1, paper, record_text(paper))

    assert record_answer("What does the dialogue observer forecast?", [source]) == []


def _catalog_of(path: Path, papers: list[tuple[str, str, str]]) -> Catalog:
    """A catalog of (id, first submitted, title) records, each with an abstract."""
    catalog = Catalog(path)
    for paper_id, published, title in papers:
        paper = Paper(id=paper_id, title=title, abstract="An abstract.", authors="A. Author",
                      published=published)  # fmt: skip
        chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, "An abstract.", "", 0, 0, paper)
        with catalog.transaction():
            catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])
    return catalog


@pytest.fixture
def titled_catalog(tmp_path: Path) -> Catalog:
    return _catalog_of(
        tmp_path / "catalog.sqlite",
        [
            ("1706.03762", "", "Attention Is All You Need"),
            ("1409.3215", "", "Sequence to Sequence Learning with Neural Networks"),
            ("2601.00011", "", "Neural Machine Translation"),
        ],
    )


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        ("What is the Transformer in Attention Is All You Need?", "1706.03762"),
        ('What BLEU does "attention is all you need" report?', "1706.03762"),
        (
            "How deep is the LSTM of Sequence to Sequence Learning with Neural Networks?",
            "1409.3215",
        ),
        # Words that run as a title does, but not written as one, name no paper.
        ("Is attention all you need for translation?", None),
        ("How does neural machine translation handle rare words?", None),
        # A title of three words is too likely a phrase, even capitalised.
        ("Is Neural Machine Translation better than phrase-based systems?", None),
        ("Does Attention Is All You Needed exist?", None),
    ],
)
def test_a_paper_is_named_by_its_title_written_as_a_title(
    titled_catalog: Catalog, question: str, paper: str | None
) -> None:
    assert paper_titled(question, titled_catalog) == paper


@pytest.fixture
def shortened_catalog(tmp_path: Path) -> Catalog:
    return _catalog_of(
        tmp_path / "catalog.sqlite",
        [
        ("2010.11929", "2020-10-22",
         "An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale"),
        ("2203.00130", "2022-03-01", "Paper Plain: Making Medical Research Papers Approachable "
         "to Healthcare Consumers with Natural Language Processing"),
        ("2504.02800", "2025-04-03", "A Survey of Large Language Models in Mental Health "
         "Disorder Detection on Social Media"),
        ("2601.00012", "2026-01-05", "An Image is Worth 16x16 Words: A Second Look"),
        ("2601.00013", "2026-01-06", "Batch Normalization: A Study of Its Variants"),
        ("1412.6980", "2014-12-22", "Adam: A Method for Stochastic Optimization"),
        ("1502.03167", "2015-02-11", "Batch Normalization: Accelerating Deep Network "
         "Training by Reducing Internal Covariate Shift"),
        ],
    )  # fmt: skip


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        # The part before the colon; of two papers sharing it, the first submitted.
        ("What arXiv category is An Image is Worth 16x16 Words in?", "2010.11929"),
        ("who wrote an image is worth 16x16 words", "2010.11929"),
        # Most of a title, its last words left out.
        ("Who wrote Paper Plain: Making Medical Research Papers Approachable to Healthcare "
         "Consumers?", "2203.00130"),
        # A few first words of a long title are a phrase, not the title.
        ("Who wrote a survey of large language models?", None),
        # "The X paper", X what titles put before their colon: the first submitted.
        ("Who wrote the Batch Normalization paper?", "1502.03167"),
        # Two words, not called a paper, are a phrase.
        ("Who wrote about batch normalization variants?", None),
    ],
)  # fmt: skip
def test_a_record_question_finds_the_paper_by_the_opening_of_its_title(
    shortened_catalog: Catalog, question: str, paper: str | None
) -> None:
    asked = read_question(question, shortened_catalog, Recognised())

    assert (asked.paper_ids if asked else ()) == ((paper,) if paper else ())


def _adam() -> Recognised:
    adam = NameMatch("Adam", "Adam", (), ("1412.6980",), introducers=("1412.6980",))
    return Recognised((adam,))


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        ("In the Adam paper, what is the default step size?", "1412.6980"),
        ("According to Adam's authors, what is the default step size?", None),
        ("According to Adam, what is the default step size?", "1412.6980"),
        ("In Batch Normalization: Accelerating Deep Network Training by Reducing Internal "
         "Covariate Shift, what is the error?", "1502.03167"),
        # A description that a title begins with is no paper's name.
        ("In the batch normalization paper, what is the error?", None),
        ("In practice, what is the default step size?", None),
        ("What is the default step size in the Adam paper?", None),
    ],
)  # fmt: skip
def test_a_leading_clause_names_a_paper_by_its_name_or_whole_title(
    shortened_catalog: Catalog, question: str, paper: str | None
) -> None:
    found = where_paper(question, shortened_catalog, lambda _text: _adam())

    assert found == paper


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        # What a title puts before its colon, capitalised, over a name written after it.
        ("Who wrote Batch Normalization, the rival of Adam for deep nets?", "1502.03167"),
        ("When was Paper Plain, which compares to Adam, submitted?", "2203.00130"),
        # Without a name in the question too.
        ("Who wrote Batch Normalization, the position paper?", "1502.03167"),
        # The name alone, or a name the capitalised words hold, is the name's paper.
        ("Who wrote Adam?", "1412.6980"),
        ("Who wrote Adam Optimizer Notes?", "1412.6980"),
    ],
)
def test_a_title_head_written_capitalised_names_the_paper_over_a_name_outside_it(
    shortened_catalog: Catalog, question: str, paper: str
) -> None:
    asked = read_question(question, shortened_catalog, _adam())

    assert asked is not None
    assert asked.paper_ids == (paper,)


@pytest.mark.parametrize(("scope", "paper"), [((), "1412.6980"), (("2010.11929",), "2010.11929")])
def test_a_name_of_several_papers_is_read_as_the_one_the_question_is_scoped_to(
    shortened_catalog: Catalog, scope: tuple[str, ...], paper: str
) -> None:
    both = ("1412.6980", "2010.11929")
    name = NameMatch("Adam", "Adam", (), both, introducers=both)

    asked = read_question("Who wrote Adam?", shortened_catalog, Recognised((name,)), scope)

    assert asked is not None
    assert asked.paper_ids == (paper,)


@pytest.mark.parametrize(
    ("question", "papers"),
    [
        # A name on one side, what a title puts before its colon on the other.
        ("Which came first, Adam or Batch Normalization?", ("1412.6980", "1502.03167")),
        # A whole title, and the side's verb after it.
        ("Was Adam or An Image is Worth 16x16 Words submitted to arXiv first?",
         ("1412.6980", "2010.11929")),
        # One side that is no paper: no comparison.
        ("Which came first, Adam or the printing press?", ()),
        # "Or" with nothing to compare.
        ("Who wrote Adam?", ()),
    ],
)  # fmt: skip
def test_the_two_papers_a_question_compares_are_read_from_either_side_of_its_or(
    shortened_catalog: Catalog, question: str, papers: tuple[str, ...]
) -> None:
    assert compared_papers(question, shortened_catalog, _adam()) == papers


def test_which_of_two_came_first_is_answered_from_both_records(shortened_catalog: Catalog) -> None:
    question = "Which came first, Batch Normalization or Adam?"
    asked = read_question(question, shortened_catalog, _adam())
    assert asked is not None

    text = "".join(record_answer(question, record_sources(asked, shortened_catalog)))

    assert asked.paper_ids == ("1502.03167", "1412.6980")
    assert (
        "Batch Normalization: Accelerating Deep Network Training by Reducing Internal "
        "Covariate Shift was first submitted on 11 February 2015. [arXiv:1502.03167]" in text
    )
    assert (
        "Adam: A Method for Stochastic Optimization was first submitted on 22 December "
        "2014. [arXiv:1412.6980]" in text
    )
    assert text.endswith(
        "Adam: A Method for Stochastic Optimization came first. [arXiv:1412.6980]\n"
    )


def test_a_name_no_paper_presents_as_its_own_is_answered_as_missing(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    for paper_id, published in (("2503.00001", "2025-03"), ("2502.00002", "2025-02"),
                                ("2504.00003", "")):  # fmt: skip
        text = "We fine-tune a detector with Low-Rank Adaptation (LoRA) on few images."
        paper = Paper(id=paper_id, title=f"Detector {paper_id}", abstract=text,
                      authors=f"Author {paper_id}", published=published)  # fmt: skip
        chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, text, "", 0, 0, paper)
        with catalog.transaction():
            catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])
    names = NameCatalog(catalog)
    names.backfill()
    question = "Who wrote the paper that introduced LoRA?"

    asked = read_question(question, catalog, NameRecogniser(names).recognise(question))
    assert asked is not None
    answer = "".join(record_answer(question, record_sources(asked, catalog)))

    assert asked.paper_ids == ("2502.00002",)  # the earliest with a date
    assert answer.startswith(
        "No paper of the library presents LoRA as its own: 3 of its papers define it (most "
        "often as \u201cLow-Rank Adaptation\u201d), none as its own name"
    )
    assert answer.rstrip().endswith(
        "The earliest here: Detector 2502.00002 (arXiv:2502.00002) is by Author 2502.00002, "
        "first submitted in February 2025. [arXiv:2502.00002]"
    )
    # Another paper about the name is not the name's own paper.
    survey = "Who wrote a survey of LoRA methods?"
    assert read_question(survey, catalog, NameRecogniser(names).recognise(survey)) is None
    dated = "When was the LoRA paper first published?"
    found = read_question(dated, catalog, NameRecogniser(names).recognise(dated))
    assert found is not None
    assert found.unowned is not None
