"""The embed examples (docs/embedding.md, examples/host.html) name a paper of the default corpus:
the one `./scripts/start` ingests, the first 2,000 abstracts and the PDFs of the shared data."""

from __future__ import annotations

import gzip
import json
import re
from itertools import islice

from tests.support.data import ABSTRACTS, PDFS, ROOT

DEFAULT_ABSTRACTS = 2000
DATA_PAPER = re.compile(r'data-paper="([^"]+)"')


def _default_corpus() -> set[str]:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        ids = {json.loads(line)["id"] for line in islice(lines, DEFAULT_ABSTRACTS)}
    return ids | {re.sub(r"v\d+$", "", pdf.stem) for pdf in PDFS.glob("*.pdf")}


def test_the_embed_examples_name_a_paper_of_the_default_corpus() -> None:
    texts = [
        (ROOT / name).read_text(encoding="utf-8")
        for name in ("docs/embedding.md", "examples/host.html")
    ]

    named = {paper for text in texts for paper in DATA_PAPER.findall(text)}

    assert named
    assert named <= _default_corpus()
