"""Where the shared test data lives: beside the project, never inside it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pypdfium2 as pdfium

from ingest.pdf.positions import page_text

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
ABSTRACTS = SHARED / "arxiv" / "abstracts.jsonl.gz"
OAI_SAMPLE = SHARED / "arxiv" / "oai-snapshot-sample.jsonl"
PDFS = SHARED / "pdfs"
EVAL = SHARED / "eval"


@cache
def pdf_page_texts(name: str) -> tuple[str, ...]:
    """Each page's text of the shared PDF `name`, as the reader's pages read it."""
    document = pdfium.PdfDocument(str(PDFS / name))
    texts = []
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            texts.append(page_text(textpage))
            textpage.close()
            page.close()
    finally:
        document.close()
    return tuple(texts)
