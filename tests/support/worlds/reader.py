"""The reader's world: an index of two real PDFs (their full text, with positions) and real
abstracts, served on a real uvicorn answering with the fake upstream; and the reader's
page as a test looks at it."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Locator, Page

from tests.fakes.openai import FakeOpenAI
from tests.support.data import ABSTRACTS
from tests.support.running.server import Api, serve_index
from tests.support.worlds.indexes import pdf_index

if TYPE_CHECKING:
    from chat.wiring import Wiring

SHORT_PDF = "2304.02623"  # 4 pages
FID_PDF = "2007.01282"  # Fusion-in-Decoder, 6 pages, two columns
READER_PDFS = (f"{SHORT_PDF}v1.pdf", f"{FID_PDF}v2.pdf")
ABSTRACT_LINES = 12

# The boxes of a highlight and the text-layer lines they cover, as the page shows them.
COVERED_LINES = """
(chunk) => {
  const marks = [...document.querySelectorAll(`[data-evidence="${CSS.escape(chunk)}"]`)];
  const boxes = marks.map((m) => m.getBoundingClientRect());
  const lines = [...document.querySelectorAll(".reader-text span")].filter((span) => {
    const r = span.getBoundingClientRect();
    const middle = (r.top + r.bottom) / 2;
    return boxes.some(
      (b) => middle > b.top && middle < b.bottom && r.left < b.right && r.right > b.left,
    );
  });
  return lines.map((span) => span.textContent).join(" ");
}
"""


@pytest.fixture(scope="session")
def reader_index(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> Iterator[Wiring]:
    index = pdf_index(
        tmp_path_factory.mktemp("reader-index"), READER_PDFS, ABSTRACT_LINES, models_cache
    )
    yield index
    index.close()


@pytest.fixture(scope="session")
def reader_web(
    reader_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    database = tmp_path_factory.mktemp("reader-db") / "paperchat.sqlite"
    yield from serve_index(reader_index, fake_llm, database)


def reader_link(base_url: str, paper_id: str) -> re.Pattern[str]:
    """What a chip or a source links to: the paper's canonical page (`/papers/<id>-<slug>`),
    opened at one of its passages (a chip with the words it follows, which the reader marks)."""
    page = re.escape(f"{base_url}/papers/{paper_id}")
    return re.compile(rf"^{page}-[a-z0-9-]+\?chunk=[^&#]+(?:&quote=[^&#]+)?#reader$")


def chunk_of(link: Locator) -> str:
    """The chunk id a citation chip or source link opens the reader at."""
    href = link.get_attribute("href") or ""
    [chunk] = parse_qs(urlsplit(href).query)["chunk"]
    return chunk


def evidence(page: Page, chunk: str) -> Locator:
    return page.locator(f'[data-evidence="{chunk}"]')


def covered_text(page: Page, chunk: str) -> str:
    text = page.evaluate(COVERED_LINES, chunk)
    assert isinstance(text, str)
    return text


def first_abstract_id() -> str:
    import json

    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as source:
        paper_id = json.loads(next(source))["id"]
    assert isinstance(paper_id, str)
    return paper_id


__all__ = ["chunk_of", "covered_text", "evidence", "reader_index", "reader_link", "reader_web"]
