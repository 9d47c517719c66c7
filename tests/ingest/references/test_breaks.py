"""Entries that a page or a column break cuts in two are read whole, without the running
head, page number or other column's lines the break puts inside them (synthetic PDFs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.index.records import Reference
from ingest.pdf.parsing import parse_pdf
from ingest.references import read_references
from tests.support.worlds.pdf_fixtures import text_at, write_layout_pdf

pytestmark = pytest.mark.timeout(60)

_HEAD = "A Study of Reference Lists Read Whole"
_PROSE = (
    "We read the reference lists of papers and resolve each entry to the paper it names, "
    "so that a reader can follow who cites whom across the library of papers we hold."
)


def _page(number: int, lines: list[str], x: float = 72, top: float = 700) -> list[bytes]:
    """A page of one column: the running head, the lines, the page number at its foot."""
    return [
        text_at(72, 750, 9, _HEAD),
        *(text_at(x, top - 12 * i, 10, line) for i, line in enumerate(lines)),
        text_at(300, 60, 9, str(number)),
    ]


def _body_page(number: int) -> list[bytes]:
    words = _PROSE.split()
    lines = [" ".join(words[(i * 9) % 27 :][:9]) + "." for i in range(40)]
    return _page(number, ["1 Introduction", *lines] if number == 1 else lines)


def _references(pdf: Path) -> tuple[Reference, ...]:
    return read_references(parse_pdf(str(pdf)).blocks)


def test_an_entry_split_over_a_page_break_is_one_without_head_or_page_number(
    tmp_path: Path,
) -> None:
    end_of_page = [
        "References",
        "D. Paperno, G. Kruszewski, and R. Fernandez. The LAMBADA dataset: Word prediction",
        "requiring a broad discourse context. In Proceedings of ACL, 2016.",
        "J. Rae, S. Borgeaud, T. Cai, K. Millican, J. Hoffmann, F. Song, J. Aslanides,",
        "S. Henderson, R. Ring, S. Young, E. Rutherford, T. Hennigan, J. Menick,",
    ]
    start_of_page = [
        "A. Cassirer, R. Powell, L. Bennett, D. Hassabis, K. Kavukcuoglu, and",
        "G. Irving. Scaling language models: Methods, analysis & insights from",
        "training Gopher. arXiv submission, 2021.",
        "A. Radford, J. Wu, R. Child, D. Luan, D. Amodei, and I. Sutskever. Language",
        "models are unsupervised multitask learners. Preprint, 2019.",
    ]
    pages = [_body_page(1), _body_page(2), _page(3, end_of_page), _page(4, start_of_page)]
    pdf = write_layout_pdf(tmp_path / "paper.pdf", pages)

    references = _references(pdf)

    assert [(r.title, r.year) for r in references] == [
        ("The LAMBADA dataset: Word prediction requiring a broad discourse context", 2016),
        ("Scaling language models: Methods, analysis & insights from training Gopher", 2021),
        ("Language models are unsupervised multitask learners", 2019),
    ]
    assert references[1].authors.startswith("J. Rae, S. Borgeaud")
    assert references[1].authors.endswith("K. Kavukcuoglu, G. Irving")
    assert _HEAD not in " ".join(r.authors + r.title + r.venue for r in references)


def test_an_entry_whose_line_overruns_the_gutter_stays_in_its_column(tmp_path: Path) -> None:
    left = [
        "References",
        "Brown, T., Mann, B., Ryder, N., Subbiah, M., and",
        "Amodei, D. Language models are few-shot learners.",
        "In Advances in Neural Information Processing",
        "Systems, 2020. URL",
        "",  # an unbroken URL, set smaller, runs past the gutter
        "pdf.",
        "Chowdhery, A., Narang, S., Devlin, J., Bosma, M.,",
        "and Fiedel, N. PaLM: Scaling language modeling",
        "with pathways, 2022.",
    ]
    right = [
        "Fagni, T., Falchi, F., Gambini, M., Martella, A.,",
        "and Tesconi, M. Tweepfake: About detecting",
        "deepfake tweets. PLOS ONE, 16(5):1-16, 2021.",
        "Fan, A., Lewis, M., and Dauphin, Y. Hierarchical",
        "neural story generation. In Proceedings of ACL,",
        "2018. URL https://aclanthology.org/P18-1082.",
    ]
    url = "https://proceedings.neurips.cc/paper/2020/file/1457c0d6bfcb4967418bf"
    prose = [f"the left column of the body text reads on at line {i}." for i in range(40)]
    body = [*(text_at(x, 700 - 12 * i, 9, line) for x in (72, 320) for i, line in enumerate(prose))]
    listing = [
        *(text_at(72, 700 - 12 * i, 9, line) for i, line in enumerate(left) if line),
        text_at(72, 640 + 1.7, 7.5, url),
        *(text_at(320, 700 - 12 * i, 9, line) for i, line in enumerate(right)),
    ]
    pdf = write_layout_pdf(tmp_path / "columns.pdf", [body, body, listing])

    references = _references(pdf)

    assert [r.title for r in references] == [
        "Language models are few-shot learners",
        "PaLM: Scaling language modeling with pathways",
        "Tweepfake: About detecting deepfake tweets",
        "Hierarchical neural story generation",
    ]
    assert [r.year for r in references] == [2020, 2022, 2021, 2018]
