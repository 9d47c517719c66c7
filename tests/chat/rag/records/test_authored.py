"""A paper named by its authors and words of its title ("Rahman et al.'s zero-shot object
detection paper"): the byline picks it among the papers on the topic, and a description
that fits several of a surname's papers alike names none."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat.rag.records.authored import authored_paper
from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper

PAPERS = [
    ("1803.06049", "Zero-Shot Object Detection: Learning to Simultaneously Recognize and "
     "Localize Novel Concepts", "Shafin Rahman, Salman Khan, Fatih Porikli"),
    ("1803.07113", "Zero Shot Detection", "Pengkai Zhu, Hanxiao Wang, Venkatesh Saligrama"),
    ("2505.05084", "Zero-Shot Machine-Generated Text Detection with Bounded False Positives",
     "Ming Zhu, Ada Lovelace"),
    ("1503.02531", "Distilling the Knowledge in a Neural Network",
     "Geoffrey Hinton, Oriol Vinyals, Jeff Dean"),
    ("2101.00001", "Graph Neural Networks for Molecules", "Wei Wang, Ann Lee"),
    ("2101.00002", "Graph Neural Networks for Traffic", "Li Wang, Bo Chen"),
]  # fmt: skip


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    for paper_id, title, authors in PAPERS:
        paper = Paper(id=paper_id, title=title, abstract="An abstract.", authors=authors)
        chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, "An abstract.", "", 0, 0, paper)
        with catalog.transaction():
            catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])
    return catalog


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        ("What does SAN stand for in Rahman et al.'s zero-shot object detection paper?",
         "1803.06049"),
        ("What is the detector proposed in Zhu et al.'s Zero Shot Detection paper called?",
         "1803.07113"),
        ("Which datasets does the zero shot detection paper by Zhu et al. use?", "1803.07113"),
        ("What does Zhu and Saligrama's zero-shot detection work use?", "1803.07113"),
        ("On which datasets is Zhu et al.'s zero shot detection method tested?", "1803.07113"),
        ("What temperature does Hinton's distillation paper use?", "1503.02531"),
        # A kind in the plural or of another name; a byline of three; the authors doing
        # something with "their" method; a byline alone that only one paper has.
        ("How many classes do Rahman et al.'s zero-shot object detection models see?",
         "1803.06049"),
        ("Which backbone does Zhu et al.'s zero shot detection network use?", "1803.07113"),
        ("What does Zhu, Wang and Saligrama's zero-shot detection work use?", "1803.07113"),
        ("On which datasets do Zhu and Saligrama test their zero shot detection method?",
         "1803.07113"),
        ("What temperature does Hinton, Vinyals and Dean's paper use?", "1503.02531"),
        # Two names are one paper's whatever the description says of it.
        ("Which GPUs did Rahman and Porikli train their open-world detector on?",
         "1803.06049"),
    ],
)  # fmt: skip
def test_the_byline_and_the_title_words_name_the_paper(
    catalog: Catalog, question: str, paper: str
) -> None:
    assert authored_paper(question, catalog) == paper


@pytest.mark.parametrize(
    "question",
    [
        "What does Wang et al.'s graph neural network paper propose?",  # two fit alike
        "What does Rahman et al.'s distillation paper propose?",  # not Rahman's topic
        "What does Smith et al.'s zero-shot detection paper propose?",  # no such author
        "What is zero-shot object detection?",  # no byline at all
        "What does Wang and Lovelace's paper propose?",  # no paper has both
        "Results show their zero shot detection method works.",  # no byline
    ],
)
def test_no_paper_when_none_or_several_fit(catalog: Catalog, question: str) -> None:
    assert authored_paper(question, catalog) is None


def test_a_name_in_the_description_is_the_paper_of_that_name_the_author_wrote(
    catalog: Catalog,
) -> None:
    """ "Zhu et al.'s ZSD network": of the papers ZSD is the own name of, Zhu's."""

    def named_papers(words: str) -> set[str]:
        return {"1803.07113", "1803.06049"} if "ZSD" in words else set()

    question = "Which backbone does Zhu et al.'s ZSD network use?"

    assert authored_paper(question, catalog, named_papers) == "1803.07113"
    assert authored_paper(question, catalog) is None  # the title does not print ZSD
    # A name none of the author's papers owns names nothing.
    assert authored_paper("What does Hinton's ZSD paper use?", catalog, named_papers) is None
